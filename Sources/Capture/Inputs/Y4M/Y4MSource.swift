import Foundation
import Logging
import Media

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
public final class Y4MSource: FrameSource, @unchecked Sendable {
    /// `y4m:PATH`, or `y4m:-` for standard input.
    public let uri: String
    /// The path as given; `-` is standard input.
    public let path: String
    private let logger: Logger

    private enum Phase { case idle, opening, streaming, stopped }

    // Guarded by `lock`.
    private let lock = NSLock()
    private var phase = Phase.idle
    private var live: Bool
    private var streamHeader: Y4MHeader?
    private var channel: Y4MChannel?
    /// True while a thread is inside `start()`'s header read or `next()`: the channel is then
    /// closed by that thread when it leaves, never under it.
    private var reading = false

    // Set under `lock` by `start()`; then used only by the thread that holds `reading`.
    private var reader: Y4MReader?
    private var pool: Y4MBufferPool?

    // Touched only by the thread that holds `reading`.
    private var nextSequenceNumber: UInt64 = 0
    private var failure: Y4MError?
    private var ended = false

    /// A source reading `path`; `-` means standard input. Nothing is opened until `start()`.
    public init(path: String, logger: Logger) {
        self.path = path
        self.uri = "y4m:" + path
        self.logger = logger
        let kind = path == "-" ? Y4MSystem.fileKind(of: 0) : Y4MSystem.fileKind(atPath: path)
        // Until `start()` looks at the opened descriptor, `stat` decides; a missing path fails in `start()`.
        live = (try? kind.get())?.isLive ?? false
    }

    /// Whether frames arrive in real time (any input but a regular file or block device).
    ///
    /// Known from `stat(2)` of the path before `start()`, from `fstat(2)` of the descriptor after.
    public var isLive: Bool { lock.withLock { live } }

    /// The stream's header, once `start()` has read it.
    public var header: Y4MHeader? { lock.withLock { streamHeader } }

    /// Frame buffers allocated so far (the pool reuses them; tests check that).
    var bufferAllocationCount: Int { lock.withLock { pool?.allocationCount ?? 0 } }

    /// Whether the input descriptor is still open.
    var isOpen: Bool { lock.withLock { channel != nil } }

    /// Whether a thread is inside `start()` or `next()` reading the input.
    var isReading: Bool { lock.withLock { reading } }

    /// Opens the input and reads the header. Does nothing if already started or stopped.
    ///
    /// Throws `Y4MError` when the input cannot be opened or its header is not a usable Y4M header.
    public func start() throws {
        let channel: Y4MChannel
        do {
            lock.lock()
            defer { lock.unlock() }
            guard phase == .idle else { return }
            do {
                channel = try Y4MChannel(path: path)
            } catch {
                phase = .stopped
                throw error
            }
            self.channel = channel
            live = channel.kind.isLive
            phase = .opening
            reading = true
        }

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
            logger.debug("y4m input stopped before its header arrived", metadata: ["source": "\(uri)"])
            return
        }

        let pool = Y4MBufferPool(byteCount: header.frameByteCount)
        let (isLive, stillRunning) = lock.withLock { () -> (Bool, Bool) in
            self.reader = reader
            self.pool = pool
            streamHeader = header
            if phase == .opening { phase = .streaming }
            return (live, phase == .streaming)
        }
        finishReading(stopping: false)
        guard stillRunning else { return }

        logger.info("y4m input opened", metadata: [
            "source": "\(uri)", "size": "\(header.width)x\(header.height)", "colourSpace": "\(header.colourSpace)",
            "format": "\(header.pixelFormat)", "frameRate": "\(header.frameRate)", "live": "\(isLive)",
            "interlacing": "\(header.interlacing)",
        ])
        if !header.frameRateIsFromHeader {
            logger.notice("y4m header gives no frame rate; timing frames at 25 fps", metadata: ["source": "\(uri)"])
        }
    }

    /// The next frame, or `nil` at the end of the stream or after `stop()`.
    ///
    /// Throws `Y4MError` for a truncated or malformed frame, and the same error again on later calls.
    public func next() throws -> SourceEvent? {
        let isLive: Bool
        do {
            lock.lock()
            defer { lock.unlock() }
            switch phase {
            case .idle: throw Y4MError.notStarted(uri: uri)
            case .opening: throw Y4MError.concurrentRead(uri: uri)
            case .stopped: return nil
            case .streaming: break
            }
            guard !reading else { throw Y4MError.concurrentRead(uri: uri) }
            reading = true
            isLive = live
        }
        defer { finishReading(stopping: false) }

        if let failure { throw failure }
        guard !ended, let reader, let pool, let header = lock.withLock({ streamHeader }) else { return nil }

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
            logger.debug("y4m input ended", metadata: ["source": "\(uri)", "frames": "\(sequenceNumber)"])
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
                format: header.pixelFormat, buffer: pool.pixelBuffer(storage)))
        }
    }

    /// Ends streaming: wakes a blocked `next()` or `start()`, closes the input once none runs.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard phase != .stopped else { return }
        phase = .stopped
        guard let channel else { return }
        channel.wake()
        if !reading { closeChannelLocked() }
        logger.debug("y4m input stopping", metadata: ["source": "\(uri)"])
    }

    /// Leaves the reading state; closes the channel if `stop()` came meanwhile (or `stopping`).
    private func finishReading(stopping: Bool) {
        lock.lock()
        defer { lock.unlock() }
        reading = false
        if stopping { phase = .stopped }
        if phase == .stopped { closeChannelLocked() }
    }

    private func closeChannelLocked() {
        channel?.close()
        channel = nil
    }
}
