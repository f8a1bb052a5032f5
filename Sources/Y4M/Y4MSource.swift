import Logging
import Media
import SystemCalls

/// Frames from a YUV4MPEG2 (`.y4m`) file, FIFO, pipe or standard input.
///
/// `start()` opens the input and reads its header (on a pipe it waits for the header to arrive;
/// `stop()` ends that wait). `next()` returns frames numbered 0, 1, 2, … in pooled storage.
/// Presentation times are `sequence × D/N` seconds from the header's `F N:D` tag for a regular
/// file, and the monotonic time each `FRAME` line arrived for a live input (a pipe, FIFO, socket
/// or character device, including standard input when it is one).
///
/// `stop()` may be called from any thread: it wakes a `next()` blocked on a pipe (which then
/// returns `nil`) and closes the input as soon as no `next()` is running.
public final class Y4MSource: FrameSource, @unchecked Sendable {  // unchecked: `nextSequenceNumber`, `failure` and `ended` are the reading thread's alone (the one holding `reading`); the rest is behind `state`
    /// `y4m:PATH`, or `y4m:-` for standard input.
    public let uri: String
    /// The path as given; `-` is standard input.
    public let path: String
    private let logger: Logger

    private enum Phase { case idle, opening, streaming, stopped }

    private struct State {
        var phase = Phase.idle
        var live: Bool
        var header: Y4MHeader?
        var channel: Y4MChannel?
        /// True while a thread is inside `start()`'s header read or `next()`: the channel is then
        /// closed by that thread when it leaves, never under it.
        var reading = false
        // Set by `start()`; then used only by the thread that holds `reading`.
        var reader: Y4MReader?
        var pool: Y4MBufferPool?
    }
    private let state: LockedValue<State>

    // Touched only by the thread that holds `reading`.
    private var nextSequenceNumber: UInt64 = 0
    private var failure: IOError?
    private var ended = false

    /// A source reading `path`; `-` means standard input. Nothing is opened until `start()`.
    public init(path: String, logger: Logger) {
        self.path = path
        self.uri = SourceURI(family: "y4m", location: path).description
        self.logger = logger
        // Until `start()` looks at the opened descriptor, `stat` decides; a missing path fails in `start()`.
        let kind = try? (path == "-" ? Y4MFileKind(of: .standardInput) : Y4MFileKind(atPath: path))
        state = LockedValue(State(live: kind?.isLive ?? false))
    }

    /// Opens `path` as `start()` would and closes it again, reading nothing: whether a reload
    /// may switch to it. `-` (standard input) always passes.
    /// - Throws: the `IOError` `start()` would throw for a path that cannot be opened or is a directory.
    public static func checkOpenable(path: String) throws(IOError) {
        _ = try Y4MChannel(path: path)
    }

    /// Whether frames arrive in real time (any input but a regular file or block device).
    ///
    /// Known from `stat(2)` of the path before `start()`, from `fstat(2)` of the descriptor after.
    public var isLive: Bool { state.withLock { $0.live } }

    /// The stream's header, once `start()` has read it.
    public var header: Y4MHeader? { state.withLock { $0.header } }

    /// Frame buffers allocated so far (the pool reuses them; tests check that).
    var bufferAllocationCount: Int { state.withLock { $0.pool?.allocationCount ?? 0 } }

    /// Whether the input descriptor is still open.
    var isOpen: Bool { state.withLock { $0.channel != nil } }

    /// Whether a thread is inside `start()` or `next()` reading the input.
    var isReading: Bool { state.withLock { $0.reading } }

    /// Opens the input and reads the header. Does nothing if already started or stopped.
    ///
    /// Throws an `IOError` when the input cannot be opened or its header is not a usable Y4M header.
    public func start() throws {
        let opened: Y4MChannel? = try state.withLock { state throws(IOError) in
            guard state.phase == .idle else { return nil }
            let channel: Y4MChannel
            do throws(IOError) {
                channel = try Y4MChannel(path: path)
            } catch {
                state.phase = .stopped
                throw error
            }
            state.channel = channel
            state.live = channel.kind.isLive
            state.phase = .opening
            state.reading = true
            return channel
        }
        guard let channel = opened else { return }

        let reader = Y4MReader(channel: channel)
        let header: Y4MHeader?
        do {
            header = try reader.readHeader()
        } catch {
            finishReading(stopping: true)
            throw error
        }
        guard let header else {
            finishReading(stopping: true)
            logger.debug("y4m input stopped before its header arrived", metadata: ["source": "\(LogText.untrusted(uri))"])
            return
        }

        // A frame and its FRAME line in the pipe at once: the writer's frame wakes this reader once.
        switch channel.holdInPipe(bytes: header.frameByteCount + Y4MReader.maximumFrameLineLength) {
        case .success(let capacity)?:
            logger.debug("y4m pipe capacity set", metadata: ["source": "\(LogText.untrusted(uri))", "bytes": "\(capacity)"])
        case .failure(let error)?:
            logger.debug("y4m pipe capacity left as it is", metadata: ["source": "\(LogText.untrusted(uri))", "error": "\(LogText.error(error))"])
        case nil:
            break
        }
        let pool = Y4MBufferPool(byteCount: header.frameByteCount)
        let (isLive, stillRunning) = state.withLock { state in
            state.reader = reader
            state.pool = pool
            state.header = header
            if state.phase == .opening { state.phase = .streaming }
            return (state.live, state.phase == .streaming)
        }
        finishReading(stopping: false)
        guard stillRunning else { return }

        logger.info("y4m input opened", metadata: [
            "source": "\(LogText.untrusted(uri))", "size": "\(header.width)x\(header.height)", "colourSpace": "\(LogText.untrusted(header.colourSpace))",
            "format": "\(header.pixelFormat)", "frameRate": "\(header.frameRate)", "live": "\(isLive)",
            "interlacing": "\(header.interlacing)",
        ])
        if !header.frameRateIsFromHeader {
            logger.notice("y4m header gives no frame rate; timing frames at 25 fps", metadata: ["source": "\(LogText.untrusted(uri))"])
        }
    }

    /// The next frame, or `nil` at the end of the stream or after `stop()`.
    ///
    /// Throws an `IOError` (code `malformedInput`) for a truncated or malformed frame, and the
    /// same error again on later calls.
    public func next() throws -> SourceEvent? {
        typealias Streaming = (reader: Y4MReader, pool: Y4MBufferPool, header: Y4MHeader, isLive: Bool)
        let streaming = try state.withLock { state throws(IOError) -> Streaming? in
            switch state.phase {
            case .idle: throw .notStarted(uri: uri)
            case .opening: throw .concurrentRead(uri: uri)
            case .stopped: return nil
            case .streaming: break
            }
            guard !state.reading else { throw .concurrentRead(uri: uri) }
            guard let reader = state.reader, let pool = state.pool, let header = state.header else { return nil }
            state.reading = true
            return (reader, pool, header, state.live)
        }
        guard let (reader, pool, header, isLive) = streaming else { return nil }
        defer { finishReading(stopping: false) }

        if let failure { throw failure }
        guard !ended else { return nil }

        let sequenceNumber = nextSequenceNumber
        let storage = pool.take()
        let outcome: Y4MReader.FrameOutcome
        do {
            outcome = try reader.readFrame(
                number: sequenceNumber, into: UnsafeMutableRawBufferPointer(rebasing: storage[..<pool.byteCount]))
        } catch {
            pool.recycle(storage)
            failure = error
            throw error
        }

        switch outcome {
        case .endOfStream:
            pool.recycle(storage)
            ended = true
            logger.debug("y4m input ended", metadata: ["source": "\(LogText.untrusted(uri))", "frames": "\(sequenceNumber)"])
            return nil
        case .stopped:
            pool.recycle(storage)
            return nil
        case .frame(let arrival):
            nextSequenceNumber += 1
            let presentationTime = isLive ? arrival : header.presentationTime(ofFrame: sequenceNumber)
            return .frame(VideoFrame(
                sequenceNumber: sequenceNumber, presentationTime: presentationTime,
                width: header.width, height: header.height, bytesPerLine: header.bytesPerLine,
                format: header.pixelFormat, buffer: pool.pixelBuffer(storage), capturedAt: isLive ? arrival : nil))
        }
    }

    /// Ends streaming: wakes a blocked `next()` or `start()`, closes the input once none runs.
    public func stop() {
        let stopping = state.withLock { state -> Bool in
            guard state.phase != .stopped else { return false }
            state.phase = .stopped
            guard let channel = state.channel else { return false }
            channel.wake()
            if !state.reading { Self.closeChannel(&state) }
            return true
        }
        if stopping { logger.debug("y4m input stopping", metadata: ["source": "\(LogText.untrusted(uri))"]) }
    }

    /// Leaves the reading state; closes the channel if `stop()` came meanwhile (or `stopping`).
    private func finishReading(stopping: Bool) {
        state.withLock { state in
            state.reading = false
            if stopping { state.phase = .stopped }
            if state.phase == .stopped { Self.closeChannel(&state) }
        }
    }

    private static func closeChannel(_ state: inout State) {
        state.channel?.close()
        state.channel = nil
    }
}
