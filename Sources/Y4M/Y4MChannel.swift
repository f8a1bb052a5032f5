import SystemCalls
import SystemPackage
import Synchronization

/// The input descriptor plus a `WakeSignal`, so that `stop()` can interrupt a read blocked on a pipe.
///
/// The input is non-blocking: a read told that data is expected (the rest of a frame whose
/// start has come) first tries `read(2)`, and only when nothing is there (`EAGAIN`, or 0 bytes,
/// which a FIFO also answers before its writer has come) does it `poll(2)` the wake signal and
/// the input, so bytes already waiting cost one system call, not two; any other read (a frame's
/// `FRAME` line, which on a live input is usually still to come) polls first. Standard input is blocking and shared with whoever started the process; when it is a pipe
/// or FIFO it is opened anew through `/proc/self/fd/0` (a description of this process's own,
/// non-blocking), else every read polls first. `wake()` sets a flag and signals; neither is
/// undone, so once woken every later read returns `.stopped` at once.
/// The descriptors are closed by `close()` or `deinit`, and only by the thread that reads, or
/// when none is reading: the owner (`Y4MSource`) guarantees that, so a descriptor is never
/// closed under a `read` that might then read a reused number. Standard input is never closed.
/// `wake()` may come from any thread; everything else from the one reading thread.
final class Y4MChannel: @unchecked Sendable {  // unchecked: `isClosed` and `pollCount` are the reading thread's (the owner closes only when none reads); `wake()` only signals
    enum ReadOutcome: Equatable {
        case bytes(Int)
        case endOfStream
        case stopped
    }

    /// The input as named in messages: the path, or `standard input`.
    let name: String
    let kind: Y4MFileKind
    private let input: FileDescriptor
    private let closesInput: Bool
    /// Whether `input` is non-blocking, so a read may be tried before polling.
    private let readsFirst: Bool
    private let wakeSignal: WakeSignal
    private let woken = Atomic(false)
    /// `poll(2)` calls made by `read` (tests check that waiting bytes are read without one).
    private(set) var pollCount = 0
    /// The wake signal (index 0), then the input (index 1).
    private let pollSet: PollSet
    private(set) var isClosed = false

    /// Opens `path` (`-` is standard input, borrowed) without blocking, also on a FIFO with no
    /// writer: `open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)`, `fstat`, then the wake signal's `eventfd`.
    init(path: String) throws(IOError) {
        let isStandardInput = path == "-"
        name = isStandardInput ? "standard input" : path
        var input: FileDescriptor
        var readsFirst = true
        if isStandardInput {
            input = .standardInput
            readsFirst = false
        } else {
            switch Result(catchingErrno: { try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec]) }) {
            case .success(let opened): input = opened
            case .failure(let error): throw .cannotOpen(path: path, errno: error)
            }
        }
        var closesInput = !isStandardInput
        let kind: Y4MFileKind
        do {
            kind = try Y4MFileKind(of: input)
        } catch {
            if closesInput { try? input.close() }
            throw isStandardInput ? .readFailed(path: name, call: "fstat", errno: error)
                                  : .cannotOpen(path: path, call: "fstat", errno: error)
        }
        if isStandardInput, kind == .fifo,
           let own = try? FileDescriptor.open("/proc/self/fd/0", .readOnly, options: [.nonBlocking, .closeOnExec]) {
            (input, readsFirst, closesInput) = (own, true, true)
        }
        let closeInput = { [input, closesInput] in if closesInput { try? input.close() } }
        guard kind != .directory else {
            closeInput()
            throw .notAStream(path: name, kind: kind.rawValue)
        }

        let wake: WakeSignal
        do {
            wake = try WakeSignal()
        } catch {
            closeInput()
            throw error
        }

        self.kind = kind
        self.input = input
        self.closesInput = closesInput
        self.readsFirst = readsFirst
        wakeSignal = wake
        pollSet = PollSet([wake.descriptor, input])
    }

    deinit { close() }

    /// Makes the current and every later `read` return `.stopped`. Safe from any thread while open.
    func wake() {
        guard !isClosed else { return }
        woken.store(true, ordering: .releasing)
        wakeSignal.signal()
    }

    /// Reads at most `buffer.count` bytes once some are available, or reports why there are none;
    /// `dataExpected`: try `read(2)` before waiting in `poll(2)`.
    func read(into buffer: UnsafeMutableRawBufferPointer, dataExpected: Bool = false) throws(IOError) -> ReadOutcome {
        guard !isClosed, !woken.load(ordering: .acquiring) else { return .stopped }
        if readsFirst && dataExpected {
            switch Result(catchingErrno: { try input.read(into: buffer) }) {
            case .success(let count) where count > 0: return .bytes(count)
            case .success, .failure(.resourceTemporarilyUnavailable):
                break  // Nothing yet (or a FIFO's writer has not come): wait below.
            case .failure(let error): throw .readFailed(path: name, errno: error)
            }
        }
        while true {
            pollCount += 1
            if case .failure(let error) = pollSet.wait() {
                throw .systemCallFailed(call: "poll", errno: error)
            }
            if !pollSet.events(at: 0).isEmpty { return .stopped }
            guard !pollSet.events(at: 1).isEmpty else { continue }
            switch Result(catchingErrno: { try input.read(into: buffer) }) {
            case .success(0): return .endOfStream
            case .success(let count): return .bytes(count)
            case .failure(.resourceTemporarilyUnavailable):
                continue  // A non-blocking descriptor woke spuriously; wait again.
            case .failure(let error): throw .readFailed(path: name, errno: error)
            }
        }
    }

    /// Asks a pipe or FIFO input to hold `bytes` at once (`system_setPipeSize`, `fcntl(F_SETPIPE_SZ)`),
    /// else the system's largest pipe (`system_pipeMaximumSize`, `/proc/sys/fs/pipe-max-size`;
    /// Linux's default 1 MiB when it cannot be read) when asking for more is refused: a frame the
    /// writer writes whole is then read in a read or two, not one per 64 KiB (the default
    /// capacity). The capacity set, or why not; `nil` for other inputs.
    func holdInPipe(bytes: Int) -> Result<Int, Errno>? {
        guard kind == .fifo, !isClosed else { return nil }
        let result = system_setPipeSize(input, bytes: bytes)
        let maximum = system_pipeMaximumSize() ?? Self.defaultPipeMaximum
        guard case .failure(.notPermitted) = result, bytes > maximum else { return result }
        return system_setPipeSize(input, bytes: maximum)
    }

    /// Linux's default `/proc/sys/fs/pipe-max-size`.
    static let defaultPipeMaximum = 1 << 20

    /// Closes the input (unless it is standard input); the wake signal's descriptor goes with
    /// the channel. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        // `close(2)` is not retried: on Linux the descriptor is gone even when it reports EINTR.
        if closesInput { try? input.close() }
    }
}
