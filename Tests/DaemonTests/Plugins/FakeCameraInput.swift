import ConfigurationKeys
import Daemon
import Media
import SystemCalls
import TestSupport

/// An input added by its descriptor alone: `fake:NAME`, a live camera of scripted 64x48 grey
/// frames with a sample of 7 at (10,10) and one of 9 at (20,20) (what `MarkDecoder` reads), one
/// every 5 ms, `fake.frames` of them (its one setting, 1 to 1,000,000); a change of it restarts the session.
struct FakeCameraSettings: Sendable, Hashable {
    var frames = 100

    init() {}
    init(reading keys: ConfigurationKeyReader) {
        if let v = keys.int("frames", in: 1...1_000_000) { frames = v }
    }
}

extension SettingsKey where Value == FakeCameraSettings {
    static var fakeCamera: Self { Self("fake", default: FakeCameraSettings()) }
}

extension InputFamily {
    /// The `fake.frames` of each source opened, in order.
    static let fakeCameraOpenings = LockedValue<[Int]>([])

    static let fakeCamera = InputFamily(
        name: "fake", schemes: ["fake"], forms: "fake:NAME",
        parse: { text in text.hasPrefix("fake:") ? SourceURI(family: "fake", location: String(text.dropFirst(5))) : nil },
        open: { _, options, _ in
            let frames = options.configuration[.fakeCamera].frames
            fakeCameraOpenings.withLock { $0.append(frames) }
            var pixels = [UInt8](repeating: 0x80, count: 64 * 48)
            (pixels[10 * 64 + 10], pixels[20 * 64 + 20]) = (7, 9)
            let steps = (0..<UInt64(frames)).map { ScriptedFrameSource.Step.frame($0, pixels: pixels) }
            return (ScriptedFrameSource(steps: steps, isLive: true, interval: .milliseconds(5)), { _ in })
        },
        checkOpenable: { _, _ in },
        isLive: { _ in true },
        settings: [SettingsSection(.fakeCamera, prefix: "fake", reload: .restartsSession, read: FakeCameraSettings.init(reading:),
                                   describe: { [("frames", "\($0.frames)")] })])
}
