import Capture
import Evdev
import Foundation
import Logging
import SystemCalls

/// What the keyboard wedge types on: a `VirtualKeyboard` (tests pass a fake).
public protocol KeyboardTypist: AnyObject {
    /// Its `/dev/input/eventN` node, when known.
    var devicePath: String? { get }
    /// Types `strokes` in order.
    func type(_ strokes: [KeyStroke]) throws
}

extension VirtualKeyboard: KeyboardTypist {}

/// The keyboard wedge: types each emitted code's text on a virtual keyboard, then the suffix
/// (Enter, Tab or nothing), as a USB barcode scanner types into the program that has the focus.
///
/// The keyboard is made through uinput (`VirtualKeyboard`) when the handler starts, on its own
/// thread; when it cannot be (no uinput module, no permission) that is logged once, with what to
/// do, and the scan goes on without it. Typing runs on that thread behind a bounded queue that
/// never makes the pipeline wait: a full queue drops the code (`keyboard_dropped`). A code with a
/// character the layout has no key for is refused whole, never typed in part, with one log line
/// naming the code and the character (`keyboard_refused`).
public final class KeyboardResultsHandler: ResultsHandler, ServiceHooks, CountsReporting, Sendable {
    /// A code's strokes, the suffix included.
    private struct Job: Sendable {
        let strokes: [KeyStroke]
        let text: String
    }

    private struct Counts {
        var typed = 0, refused = 0
        /// Codes taken from the queue with no keyboard to type them on, or whose typing failed.
        var untyped = 0
    }

    /// The keyboard, touched only on the worker's thread.
    private final class Keyboard: @unchecked Sendable {  // unchecked: its `var`s are the worker thread's alone
        var typist: (any KeyboardTypist)?
        var failureLogged = false
    }

    public let settings: KeyboardSettings
    private let logger: Logger
    private let worker: BoundedWorker<Job>
    private let counts = LockedValue(Counts())
    /// With `what: results`, the codes of the read window open now, typed if it ends `good`.
    private let window = LockedValue<[Job]>([])

    /// - Parameters:
    ///   - makeKeyboard: makes the keyboard on the handler's thread; the default makes a
    ///     `VirtualKeyboard` named `settings.deviceName` through `settings.uinputPath`.
    ///   - strokeInterval: the pause after each key typed, so a reader that polls keeps up.
    public init(settings: KeyboardSettings, logger: Logger, strokeInterval: Duration = .milliseconds(2),
                makeKeyboard: (@Sendable () throws -> any KeyboardTypist)? = nil) {
        self.settings = settings
        self.logger = logger
        let make: @Sendable () throws -> any KeyboardTypist = makeKeyboard ?? {
            try VirtualKeyboard(name: settings.deviceName, keys: USKeymap.keys, uinputPath: settings.uinputPath)
        }
        let keyboard = Keyboard()
        let counts = self.counts
        let pause = Double(strokeInterval.components.seconds) + Double(strokeInterval.components.attoseconds) / 1e18
        worker = BoundedWorker(name: "syncscan-keys", capacity: settings.queueCodes, overflow: .drop, onStart: {
            do {
                let typist = try make()
                keyboard.typist = typist
                logger.info("keyboard wedge: typing codes on a virtual keyboard", metadata: [
                    "device": "\(LogText.untrusted(typist.devicePath ?? "?"))", "name": "\(LogText.untrusted(settings.deviceName))", "layout": "\(settings.layout.rawValue)"])
            } catch {
                logger.error("keyboard wedge off: \(LogText.error(error)); the scan goes on without it")
            }
        }) { job, _ in
            guard let typist = keyboard.typist else {
                counts.withLock { $0.untyped += 1 }
                return
            }
            do {
                for stroke in job.strokes {
                    try typist.type([stroke])
                    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                }
                counts.withLock { $0.typed += 1 }
            } catch {
                counts.withLock { $0.untyped += 1 }
                if !keyboard.failureLogged {
                    keyboard.failureLogged = true
                    logger.error("keyboard wedge: a code was not typed whole; later failures are counted as keyboard_dropped",
                                 metadata: ["error": "\(LogText.error(error))"])
                }
            }
        }
    }

    /// Starts the handler's thread, which makes the keyboard first.
    public func start() { worker.start() }

    /// Codes typed whole, suffix included.
    public var typed: Int { counts.withLock { $0.typed } }
    /// Codes refused: a character the layout has no key for, or no text.
    public var refused: Int { counts.withLock { $0.refused } }
    /// Codes not typed: the queue was full, there was no keyboard, or typing failed.
    public var dropped: Int { worker.dropped + counts.withLock { $0.untyped } }

    public var counters: [ResultsCounter] {
        [
            ResultsCounter(name: "keyboard_typed", help: "Codes typed on the virtual keyboard.", value: typed),
            ResultsCounter(name: "keyboard_refused", help: "Codes not typed: a character the keyboard layout has no key for (the log names it).",
                           value: refused),
            ResultsCounter(name: "keyboard_dropped", help: "Codes not typed: the keyboard's queue was full, or there was no keyboard (the log says why).",
                           value: dropped),
        ]
    }

    public func handle(_ code: inout DeliveredCode) throws {
        guard let text = code.code.text else {
            refuse(code, "it has no text (binary data)")
            return
        }
        switch USKeymap.strokes(for: text) {
        case .failure(let character):
            refuse(code, "\(character) has no key on the \(settings.layout.rawValue) keyboard layout", text: text)
        case .success(var strokes):
            switch settings.suffix {
            case .enter: strokes.append(.enter)
            case .tab: strokes.append(.tab)
            case .none: break
            }
            let job = Job(strokes: strokes, text: text)
            switch settings.what {
            case .codes: worker.submit(job)
            case .results: window.withLock { $0.append(job) }
            }
        }
    }

    /// With `what: results`, a `good` window's codes are typed now, in the order they were read;
    /// another result's are forgotten.
    public func readResult(_ result: inout ReadResult) throws {
        guard settings.what == .results else { return }
        let jobs = window.withLock { jobs in defer { jobs = [] }; return jobs }
        guard result.kind == .good else { return }
        for job in jobs { worker.submit(job) }
    }

    private func refuse(_ code: DeliveredCode, _ why: String, text: String? = nil) {
        counts.withLock { $0.refused += 1 }
        var metadata: Logger.Metadata = ["symbology": "\(code.code.symbology)", "seq": "\(code.code.frame.sequenceNumber)"]
        if let item = code.item { metadata["item"] = "\(item)" }
        if let text { metadata["text"] = "\(LogText.untrusted(text))" }
        logger.warning("keyboard wedge: code not typed: \(LogText.untrusted(why))", metadata: metadata)
    }

    /// Types what is queued and stops the thread (blocking); the keyboard goes with the handler.
    public func finish() throws { worker.finish() }
}
