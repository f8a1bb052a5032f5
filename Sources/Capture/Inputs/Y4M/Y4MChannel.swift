#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input descriptor plus a wake pipe, so that `stop()` can interrupt a read blocked on a pipe.
///
/// Every read first `poll(2)`s the input and the wake pipe's read end; `wake()` writes a byte to
/// the pipe, which is never drained, so once woken every later read returns `.stopped` at once.
/// The descriptors are closed by `close()` or `deinit`, and only by the thread that reads, or
/// when none is reading: the owner (`Y4MSource`) guarantees that, so a descriptor is never
/// closed under a `read` that might then read a reused number. Standard input is never closed.
final class Y4MChannel {
    enum ReadOutcome: Equatable {
        case bytes(Int)
        case endOfStream
        case stopped
    }

    /// The input as named in messages: the path, or `standard input`.
    let name: String
    let kind: Y4MFileKind
    private let input: Int32
    private let closesInput: Bool
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let pollSet: UnsafeMutablePointer<pollfd>
    private(set) var isClosed = false

    /// Opens `path` (`-` is standard input, borrowed) without blocking, also on a FIFO with no writer.
    init(path: String) throws(Y4MError) {
        let isStandardInput = path == "-"
        name = isStandardInput ? "standard input" : path
        let fd: Int32
        if isStandardInput {
            fd = STDIN_FILENO
        } else {
            switch Y4MSystem.openForReading(path) {
            case .success(let opened): fd = opened
            case .failure(let error): throw .cannotOpen(path: path, errno: error.rawValue)
            }
        }
        let closeInput = { if !isStandardInput { Y4MSystem.closeDescriptor(fd) } }

        let kind: Y4MFileKind
        switch Y4MSystem.fileKind(of: fd) {
        case .success(let found): kind = found
        case .failure(let error):
            closeInput()
            throw isStandardInput ? .readFailed(path: name, errno: error.rawValue)
                                  : .cannotOpen(path: path, errno: error.rawValue)
        }
        guard kind != .directory else {
            closeInput()
            throw .notAStream(path: name, kind: kind.rawValue)
        }

        let wake: (read: Int32, write: Int32)
        switch Y4MSystem.makeNonBlockingPipe() {
        case .success(let pipe): wake = pipe
        case .failure(let error):
            closeInput()
            throw .systemCallFailed(call: "pipe", errno: error.rawValue)
        }

        self.kind = kind
        input = fd
        closesInput = !isStandardInput
        wakeRead = wake.read
        wakeWrite = wake.write
        pollSet = .allocate(capacity: 2)
        pollSet.initialize(to: pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0))
        (pollSet + 1).initialize(to: pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
    }

    deinit {
        close()
        pollSet.deallocate()
    }

    /// Makes the current and every later `read` return `.stopped`. Safe from any thread while open.
    func wake() {
        guard !isClosed else { return }
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) means it was woken already; nothing else can fail here.
        _ = withUnsafeBytes(of: &byte) { Y4MSystem.writeBytes(wakeWrite, from: $0) }
    }

    /// Reads at most `buffer.count` bytes once some are available, or reports why there are none.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Y4MError) -> ReadOutcome {
        guard !isClosed else { return .stopped }
        while true {
            pollSet[0].revents = 0
            pollSet[1].revents = 0
            if case .failure(let error) = Y4MSystem.waitForEvents(pollSet, count: 2) {
                throw .systemCallFailed(call: "poll", errno: error.rawValue)
            }
            if pollSet[0].revents != 0 { return .stopped }
            guard pollSet[1].revents != 0 else { continue }
            switch Y4MSystem.readBytes(input, into: buffer) {
            case .success(0): return .endOfStream
            case .success(let count): return .bytes(count)
            case .failure(let error) where error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK:
                continue  // A non-blocking descriptor woke spuriously; wait again.
            case .failure(let error): throw .readFailed(path: name, errno: error.rawValue)
            }
        }
    }

    /// Closes the wake pipe and the input (unless it is standard input). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if closesInput { Y4MSystem.closeDescriptor(input) }
        Y4MSystem.closeDescriptor(wakeRead)
        Y4MSystem.closeDescriptor(wakeWrite)
    }
}
