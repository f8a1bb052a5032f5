import CSystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The process's SIGTERM, SIGINT, SIGHUP and SIGUSR1: trapped from the executable's first code
/// on (`CEarlySignals`), counted, and handed to whoever listens, those that came before anyone
/// listened first.
///
/// The handler only counts (`csystemcalls_signals_trap`); one thread (`syncscan-sig`, started
/// by the first listener) reads the counts when the handler wakes it and hands each listener the
/// arrivals no listener of that signal has taken yet. So a signal that arrives while the daemon
/// starts is neither fatal nor lost: the listener that comes later gets it.
public final class ProcessSignals: Sendable {
    /// A signal this type traps.
    public enum Signal: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case terminate = 15, interrupt = 2, hangUp = 1, user1 = 10

        public var description: String {
            switch self {
            case .terminate: "SIGTERM"
            case .interrupt: "SIGINT"
            case .hangUp: "SIGHUP"
            case .user1: "SIGUSR1"
            }
        }
    }

    /// Arrivals of one signal handed to a listener: `count` of them since its last.
    public struct Arrivals: Sendable, Hashable {
        public var signal: Signal
        public var count: Int
    }

    /// The process's one instance.
    public static let shared = ProcessSignals()

    private struct Listener {
        let signals: Set<Signal>
        let continuation: AsyncStream<Arrivals>.Continuation
    }

    private struct State {
        /// Arrivals handed to listeners, per signal.
        var taken: [Signal: UInt] = [:]
        var listeners: [Int: Listener] = [:]
        var nextListener = 0
        var threadStarted = false
    }

    private let state = LockedValue(State())

    private init() {}

    /// Traps the four signals now, if the executable's start-up has not (a test, or a program
    /// without `CEarlySignals`); idempotent.
    public static func trap() throws(Errno) {
        guard csystemcalls_signals_trap() == 0 else { throw Errno(rawValue: errno) }
    }

    /// Gives the four signals their default actions back, and lets each one that arrived while
    /// they were trapped take it now: for a command that is not the daemon (`check-config`).
    public static func restoreDefaults() {
        _ = csystemcalls_signals_restore_defaults()
    }

    /// The arrivals of `signals` no listener has taken yet (those that came before this call
    /// first, in one element per signal), then each new batch, until the task iterating it is
    /// cancelled or stops iterating. One listener per signal at a time: with two, the first takes them.
    public func arrivals(of signals: Set<Signal>) -> AsyncStream<Arrivals> {
        let (stream, continuation) = AsyncStream.makeStream(of: Arrivals.self)
        let (id, startThread) = state.withLock { state in
            let id = state.nextListener
            state.nextListener += 1
            state.listeners[id] = Listener(signals: signals, continuation: continuation)
            defer { state.threadStarted = true }
            return (id, !state.threadStarted)
        }
        continuation.onTermination = { [self] _ in _ = state.withLock { $0.listeners.removeValue(forKey: id) } }
        if startThread { startListening() }
        deliver()
        return stream
    }

    /// Hands each listener the arrivals of its signals not taken yet. Called by the listening
    /// thread when the handler wakes it, and once for a new listener.
    private func deliver() {
        let deliveries: [(AsyncStream<Arrivals>.Continuation, Arrivals)] = state.withLock { state in
            var deliveries: [(AsyncStream<Arrivals>.Continuation, Arrivals)] = []
            for signal in Signal.allCases {
                let listeners = state.listeners.values.filter { $0.signals.contains(signal) }
                guard let listener = listeners.first else { continue }
                let arrived = csystemcalls_signals_arrivals(signal.rawValue), taken = state.taken[signal] ?? 0
                guard arrived > taken else { continue }
                state.taken[signal] = arrived
                deliveries.append((listener.continuation, Arrivals(signal: signal, count: Int(arrived - taken))))
            }
            return deliveries
        }
        for (continuation, arrivals) in deliveries { continuation.yield(arrivals) }
    }

    /// The thread that waits on the handler's pipe for the life of the process.
    private func startListening() {
        let descriptor = csystemcalls_signals_wake_descriptor()
        guard descriptor >= 0 else { return }
        startThread(name: "syncscan-sig") { [self] in
            let wake = FileDescriptor(rawValue: descriptor)
            let poll = PollSet([wake])
            let drain = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 1)
            while true {
                guard case .success = poll.wait() else { continue }
                // Empty the pipe (non-blocking), then read the counts: a signal after the read wakes the next wait.
                while let n = try? wake.read(into: drain), n == drain.count {}
                deliver()
            }
        }
    }
}
