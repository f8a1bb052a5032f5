import Logging
import SystemCalls

/// A capture source's `device.controls`: the settings in force, set on each open of the camera,
/// and the count of those that failed (each cause logged once).
///
/// At the first open a setting that cannot be applied is an error (`applyAtStart`): the
/// configuration names something the camera does not offer. Later (a reopen after an unplug
/// or a driver reload, which reset the controls; a reload's new settings) a failure is counted
/// and logged, and capture goes on.
final class CameraControls: Sendable {
    private struct State {
        var settings: [V4L2ControlSetting]
        var failures = 0
        var loggedCauses: Set<String> = []
    }

    private let state: LockedValue<State>
    private let logger: Logger

    init(_ settings: [V4L2ControlSetting], logger: Logger) {
        state = LockedValue(State(settings: settings))
        self.logger = logger
    }

    /// The settings set on every open.
    var settings: [V4L2ControlSetting] {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Settings that failed to apply after the first open.
    var failures: Int { state.withLock { $0.failures } }

    /// Sets the settings on `device` at the first open; throws naming every one that failed.
    func applyAtStart(on device: V4L2Device) throws(IOError) {
        let settings = self.settings
        guard !settings.isEmpty else { return }
        let errors = device.apply(settings, controls: try device.controls())
        if !errors.isEmpty {
            throw IOError(code: .invalidArgument, call: "VIDIOC_S_EXT_CTRLS",
                          message: errors.map(\.description).joined(separator: "; ") + " — fix device.controls")
        }
        logApplied(settings, on: device)
    }

    /// Sets `settings` (default: those in force) on `device`; the failures, counted and each
    /// cause logged once.
    @discardableResult
    func apply(_ settings: [V4L2ControlSetting]? = nil, on device: V4L2Device) -> [V4L2ControlError] {
        let settings = settings ?? self.settings
        guard !settings.isEmpty else { return [] }
        let errors: [V4L2ControlError]
        do {
            errors = device.apply(settings, controls: try device.controls())
        } catch {
            logger.error("camera controls cannot be listed; device.controls not applied", metadata: [
                "device": "\(LogText.untrusted(device.path))", "error": "\(LogText.error(error))"])
            state.withLock { $0.failures += settings.count }
            return settings.map { V4L2ControlError(device: device.path, control: $0.name, value: $0.value, reason: .unknown(offered: [])) }
        }
        let firstTime = state.withLock { state in
            state.failures += errors.count
            return errors.filter { state.loggedCauses.insert($0.cause).inserted }
        }
        for error in firstTime {
            logger.error("camera control not applied", metadata: ["error": "\(LogText.error(error))", "later": "the same failure is counted, not logged again"])
        }
        if errors.isEmpty { logApplied(settings, on: device) }
        return errors
    }

    private func logApplied(_ settings: [V4L2ControlSetting], on device: V4L2Device) {
        logger.info("camera controls applied", metadata: [
            "device": "\(LogText.untrusted(device.path))",
            "controls": "\(LogText.untrusted(settings.map { "\($0.name)=\($0.value)" }.joined(separator: " "), limit: LogText.errorLimit))"])
    }
}
