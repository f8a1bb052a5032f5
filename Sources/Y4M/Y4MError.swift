import SystemPackage
/// Why a Y4M input could not be opened or read; `description` says what was wrong and what to do.
///
/// Frame numbers count from 0 and equal the sequence number the frame would have had.
/// Byte offsets count from the first byte of the stream.
public enum Y4MError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `open(2)` failed on `path` with `errno`.
    case cannotOpen(path: String, errno: Int32)
    /// `path` is something that cannot hold a stream, e.g. a directory.
    case notAStream(path: String, kind: String)
    /// `read(2)` failed on the input with `errno`.
    case readFailed(path: String, errno: Int32)
    /// A system call other than open/read failed (`pipe`, `fcntl`, `poll`).
    case systemCallFailed(call: String, errno: Int32)
    /// The input ended before its first byte.
    case emptyStream(path: String)
    /// The input does not start with `YUV4MPEG2 `; `found` shows its first bytes, escaped.
    case notY4M(path: String, found: String)
    /// The input ended inside the header line; `found` is what was there.
    case truncatedHeader(path: String, found: String)
    /// No newline within the first `limit` bytes of the header.
    case headerTooLong(path: String, limit: Int)
    /// A required header tag (`W` or `H`) is absent.
    case missingTag(tag: String)
    /// A header tag's value cannot be used; `tag` is the whole tag as written, e.g. `Wabc`.
    case malformedTag(tag: String, reason: String)
    /// The `C` tag names a colour space the pipeline does not read; `colourSpace` is its value.
    case unsupportedColourSpace(String)
    /// The header describes frames larger than the input accepts.
    case frameTooLarge(width: Int, height: Int, bytes: Int, limit: Int)
    /// The stream ended inside the `FRAME` line of frame `frame`.
    case truncatedFrameMarker(frame: UInt64, found: String, offset: Int64)
    /// Where frame `frame` should start there is something other than a `FRAME` line.
    /// `frameBytes` is the payload size the header implies.
    case malformedFrameMarker(frame: UInt64, found: String, offset: Int64, frameBytes: Int)
    /// The stream ended inside the pixels of frame `frame`.
    case truncatedFrame(frame: UInt64, expected: Int, got: Int)
    /// `next()` was called before `start()`.
    case notStarted(uri: String)
    /// `next()` was called while another call to it was running: a source has one reading thread.
    case concurrentRead(uri: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            "cannot open Y4M input '\(path)': \(Self.describe(errno: code)); check the path after 'y4m:' and its permissions"
        case .notAStream(let path, let kind):
            "Y4M input '\(path)' is \(kind), not a stream; name a .y4m file, a FIFO, or '-' for standard input"
        case .readFailed(let path, let code):
            "reading Y4M input '\(path)' failed: \(Self.describe(errno: code))"
        case .systemCallFailed(let call, let code):
            "\(call) failed for the Y4M input: \(Self.describe(errno: code))"
        case .emptyStream(let path):
            "Y4M input '\(path)' is empty: expected a header starting with 'YUV4MPEG2 '"
        case .notY4M(let path, let found):
            "'\(path)' is not a Y4M stream: expected 'YUV4MPEG2 ', found \(found); "
                + "convert it with: ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe OUTPUT.y4m"
        case .truncatedHeader(let path, let found):
            "Y4M input '\(path)' ends inside its header: got \(found) and no newline"
        case .headerTooLong(let path, let limit):
            "Y4M input '\(path)' has no end of header line within \(limit) bytes; the file is corrupt or not Y4M"
        case .missingTag(let tag):
            "Y4M header has no '\(tag)' tag (\(tag == "W" ? "frame width" : "frame height")); it is required"
        case .malformedTag(let tag, let reason):
            "malformed Y4M header tag '\(tag)': \(reason)"
        case .unsupportedColourSpace(let colourSpace):
            "unsupported Y4M colour space 'C\(colourSpace)': 8-bit mono, 420, 420jpeg, 420mpeg2, 420paldv, 422 and 444 "
                + "are read; convert with: ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe OUTPUT.y4m"
        case .frameTooLarge(let width, let height, let bytes, let limit):
            "Y4M frames of \(width)x\(height) need \(bytes) bytes each, more than the limit of \(limit); scale the video down"
        case .truncatedFrameMarker(let frame, let found, let offset):
            "frame \(frame): the stream ends inside its FRAME marker at byte offset \(offset) (found \(found))"
        case .malformedFrameMarker(let frame, let found, let offset, let frameBytes):
            "frame \(frame): expected FRAME, found \(found) at byte offset \(offset); "
                + "the previous frame may not be the \(frameBytes) bytes the header's size and colour space imply"
        case .truncatedFrame(let frame, let expected, let got):
            "frame \(frame) truncated: expected \(expected) bytes, got \(got); the stream ended mid-frame"
        case .notStarted(let uri):
            "\(uri): next() called before start()"
        case .concurrentRead(let uri):
            "\(uri): next() called while another next() was running; read a source from one thread"
        }
    }

    /// Bytes as a quoted string a user can read: printable ASCII as is, the rest as `\xNN`,
    /// cut after `limit` bytes with `…`.
    static func quote(_ bytes: some Collection<UInt8>, limit: Int = 32) -> String {
        var text = "'"
        for byte in bytes.prefix(limit) {
            switch byte {
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x09: text += "\\t"
            case 0x5C: text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        text += bytes.count > limit ? "…'" : "'"
        return text
    }

    /// The C library's text for an errno, with its number: `No such file or directory (errno 2)`.
    static func describe(errno code: Int32) -> String {
        "\(Errno(rawValue: code)) (errno \(code))"
    }
}
