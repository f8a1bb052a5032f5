import Media
import SystemCalls

/// Parses a YUV4MPEG2 stream from a `Y4MChannel`: the header once, then one frame per call.
///
/// Lines (header, `FRAME` markers) go through a 64 KiB read buffer; frame pixels are copied
/// from what is already buffered and the rest is read straight into the caller's storage. Before
/// a frame larger than the buffer, the `FRAME` line is read with at most `frameLineRead` bytes,
/// so little of the frame passes through the buffer (one copy of a few KiB, not of 64).
/// In steady state it allocates nothing per frame. Used by one thread at a time (the owner,
/// `Y4MSource`, hands it only to the thread that holds its `reading` flag).
final class Y4MReader: @unchecked Sendable {  // unchecked: its buffer and line are the reading thread's alone (`Y4MSource` hands it to one thread at a time)
    enum FrameOutcome: Equatable {
        /// The pixels were written; `arrival` is the monotonic time the `FRAME` line was read.
        case frame(arrival: MediaTime)
        /// The stream ended cleanly at a frame boundary.
        case endOfStream
        /// The channel was woken by `stop()`.
        case stopped
    }

    private enum LineEnd {
        case newline, endOfStream, stopped, limitReached
    }

    /// The longest header line accepted, newline excluded.
    static let maximumHeaderLength = 4096
    /// The longest `FRAME` line accepted, newline excluded.
    static let maximumFrameLineLength = 4096
    static let readBufferSize = 64 * 1024
    /// The most read at once for a `FRAME` line followed by a frame larger than the read buffer.
    static let frameLineRead = 4 * 1024

    private let channel: Y4MChannel
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var head = 0
    private var tail = 0
    /// The line most recently read, without its newline; its capacity is reserved once.
    private var line: [UInt8] = []
    /// Bytes of the stream consumed so far.
    private(set) var offset: Int64 = 0
    /// Pixel bytes of the last frame copied from the read buffer (the rest was read in place).
    private(set) var lastFrameBufferedBytes = 0

    init(channel: Y4MChannel) {
        self.channel = channel
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 64)
        line.reserveCapacity(max(Self.maximumHeaderLength, Self.maximumFrameLineLength))
    }

    deinit { readBuffer.deallocate() }

    /// Reads and parses the header line; `nil` if the channel was stopped first.
    func readHeader() throws(IOError) -> Y4MHeader? {
        let end = try readLine(limit: Self.maximumHeaderLength)
        let magic = Y4MHeader.magic
        let compared = min(line.count, magic.count)
        if !line.prefix(compared).elementsEqual(magic.prefix(compared)) {
            throw .notY4M(path: channel.name, found: quotedBytes(line + (end == .newline ? [0x0A] : [])))
        }
        switch end {
        case .stopped:
            return nil
        case .endOfStream:
            if line.isEmpty { throw .emptyStream(path: channel.name) }
            throw .truncatedHeader(path: channel.name, found: quotedBytes(line, limit: 200))
        case .limitReached:
            throw .headerTooLong(path: channel.name, limit: Self.maximumHeaderLength)
        case .newline:
            return try Y4MHeader.parse(line: line, path: channel.name)
        }
    }

    /// Reads frame `number`'s `FRAME` line and its pixels into `storage` (exactly the frame's size).
    func readFrame(number: UInt64, into storage: UnsafeMutableRawBufferPointer) throws(IOError) -> FrameOutcome {
        let markerOffset = offset
        let refill = storage.count > Self.readBufferSize ? Self.frameLineRead : Self.readBufferSize
        switch try readLine(limit: Self.maximumFrameLineLength, refill: refill) {
        case .stopped:
            return .stopped
        case .endOfStream:
            if line.isEmpty { return .endOfStream }
            throw .truncatedFrameMarker(frame: number, found: quotedBytes(line), offset: markerOffset)
        case .limitReached:
            throw .malformedFrameMarker(frame: number, found: quotedBytes(line), offset: markerOffset,
                                        frameBytes: storage.count)
        case .newline:
            let isMarker = line.count >= 5 && line[0] == 0x46 && line[1] == 0x52 && line[2] == 0x41
                && line[3] == 0x4D && line[4] == 0x45 && (line.count == 5 || line[5] == 0x20)
            guard isMarker else {
                throw .malformedFrameMarker(frame: number, found: quotedBytes(line + [0x0A]),
                                            offset: markerOffset, frameBytes: storage.count)
            }
        }
        let arrival = MediaTime.monotonicNow()

        var filled = min(tail - head, storage.count)
        lastFrameBufferedBytes = filled
        if filled > 0 {
            storage.baseAddress!.copyMemory(from: readBuffer.baseAddress! + head, byteCount: filled)
            head += filled
        }
        while filled < storage.count {
            switch try channel.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[filled...]), dataExpected: true) {
            case .bytes(let count):
                filled += count
            case .endOfStream:
                offset += Int64(filled)
                throw .truncatedFrame(frame: number, expected: storage.count, got: filled)
            case .stopped:
                offset += Int64(filled)
                return .stopped
            }
        }
        offset += Int64(filled)
        return .frame(arrival: arrival)
    }

    /// Reads bytes into `line` up to a newline (consumed, not stored), the end, or `limit` bytes,
    /// refilling the read buffer with at most `refill` bytes a read.
    private func readLine(limit: Int, refill: Int = readBufferSize) throws(IOError) -> LineEnd {
        line.removeAll(keepingCapacity: true)
        while true {
            if head == tail {
                head = 0
                tail = 0
                switch try channel.read(into: UnsafeMutableRawBufferPointer(rebasing: readBuffer[..<min(refill, readBuffer.count)])) {
                case .bytes(let count): tail = count
                case .endOfStream: return .endOfStream
                case .stopped: return .stopped
                }
            }
            let span = min(tail - head, limit - line.count)
            let window = UnsafeRawBufferPointer(rebasing: readBuffer[head..<(head + span)])
            if let newline = window.firstIndex(of: 0x0A) {
                line.append(contentsOf: UnsafeRawBufferPointer(rebasing: window[..<newline]))
                let consumed = newline - window.startIndex + 1
                head += consumed
                offset += Int64(consumed)
                return .newline
            }
            line.append(contentsOf: window)
            head += span
            offset += Int64(span)
            if line.count >= limit { return .limitReached }
        }
    }
}
