import Capture
import Evdev
import Foundation
import Logging
import SystemCalls

/// A key of an input device as a trigger: reads the device on a thread of its own and presses
/// the `TriggerSwitch` when the key goes down (value 1), releases it when it comes up (value 0);
/// autorepeats (value 2) are ignored.
///
/// The device is opened when the thread starts. A device missing at start, or one that goes
/// away (unplugged: ENODEV), is logged once and tried again every `reopenInterval` until it is
/// back; the scan never waits for it. The thread waits in `poll(2)` on the device and a
/// `WakeSignal`, which `stop()` signals.
public final class KeyTrigger: Sendable {
    /// Counts since the trigger was made.
    public struct Counts: Sendable, Equatable {
        public var presses = 0, releases = 0
        /// Times the device was opened again after it went away.
        public var reopens = 0
        /// Whether the device is open now.
        public var open = false
    }

    public let settings: KeyTriggerSettings
    private let triggers: TriggerSwitch
    private let logger: Logger
    private let reopenInterval: Duration
    private let wake: WakeSignal?
    private let state = LockedValue(State())

    private struct State {
        var counts = Counts()
        var started = false, stopped = false, ended = false
    }

    public init(settings: KeyTriggerSettings, triggers: TriggerSwitch, logger: Logger, reopenInterval: Duration = .seconds(1)) {
        self.settings = settings
        self.triggers = triggers
        self.logger = logger
        self.reopenInterval = reopenInterval
        do { wake = try WakeSignal() } catch {
            wake = nil
            logger.error("key trigger off: \(LogText.error(error))")
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Starts the reading thread (once).
    public func start() {
        let start: Bool = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        guard start, let wake else {
            state.withLock { $0.ended = true }
            return
        }
        startThread(name: "syncscan-key") { [self] in
            read(wake: wake)
            state.withLock { $0.ended = true }
            state.broadcast()
        }
    }

    /// Ends the thread and waits for it (blocking: call it off the concurrency pool).
    public func stop() {
        let running: Bool = state.withLock { state in
            state.stopped = true
            return state.started && !state.ended
        }
        wake?.signal()
        guard running else { return }
        state.withLock(when: { $0.ended }) { _, _ in }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func read(wake: WakeSignal) {
        let poll = PollSet(count: 2)
        poll.watch(wake.descriptor, for: .input, at: 1)
        var lastFailure: String?
        var opens = 0
        while !stopped {
            let device: InputDevice
            do {
                device = try InputDevice(path: settings.device)
            } catch {
                // Each new kind of failure once; the same one again (every second) is not logged.
                let kind = "\(error.call) \(error.cause?.symbol ?? "")"
                if kind != lastFailure {
                    lastFailure = kind
                    logger.error("key trigger: \(LogText.error(error)); trying again every \(reopenInterval) until it can be read")
                }
                poll.watch(nil, for: .input, at: 0)
                _ = poll.wait(timeout: reopenInterval)
                continue
            }
            lastFailure = nil
            opens += 1
            state.withLock {
                if opens > 1 { $0.counts.reopens += 1 }
                $0.counts.open = true
            }
            if !device.has(settings.code) {
                logger.warning("key trigger: the device has no \(settings.code); no press will come from it",
                               metadata: ["device": "\(LogText.untrusted(settings.device))", "name": "\(LogText.untrusted(device.name))"])
            }
            logger.info("key trigger: reading \(settings.code)", metadata: ["device": "\(LogText.untrusted(settings.device))", "name": "\(LogText.untrusted(device.name))"])
            let gone = readUntilGone(device, poll: poll)
            state.withLock { $0.counts.open = false }
            guard let gone else { return }
            logger.error("key trigger: \(LogText.error(gone)); trying again every \(reopenInterval) until it is back")
            lastFailure = "\(gone.call) \(gone.cause?.symbol ?? "")"
        }
    }

    /// Reads `device` until `stop()` (`nil`) or a failure (the device went away).
    private func readUntilGone(_ device: InputDevice, poll: PollSet) -> IOError? {
        poll.watch(device.descriptor, for: .input, at: 0)
        while !stopped {
            if case .failure(let errno) = poll.wait() {
                return IOError(call: "poll", message: "\(settings.device): cannot wait for input", errno: errno)
            }
            if !poll.events(at: 1).isEmpty { return nil }
            if poll.events(at: 0).isEmpty { continue }
            do {
                for event in try device.readEvents() where event.isKey && event.code == settings.code.rawValue {
                    pull(event.value)
                }
            } catch {
                return error
            }
        }
        return nil
    }

    private func pull(_ value: Int32) {
        switch value {
        case 1:
            state.withLock { $0.counts.presses += 1 }
            triggers.press(origin: "key")
            logger.debug("key trigger: press", metadata: ["code": "\(settings.code)"])
        case 0:
            state.withLock { $0.counts.releases += 1 }
            triggers.release(origin: "key")
            logger.debug("key trigger: release", metadata: ["code": "\(settings.code)"])
        default:
            break  // 2: autorepeat while held
        }
    }
}
