import SystemCalls
import SystemPackage

/// The ways a Y4M input fails, each an `IOError` whose message says what was wrong and what to do.
///
/// Frame numbers count from 0 and equal the sequence number the frame would have had.
/// Byte offsets count from the first byte of the stream.
extension IOError {
    /// `open(2)` of `path` (or the `fstat(2)` right after it) failed.
    static func cannotOpen(path: String, call: String = "open", errno: Errno) -> IOError {
        IOError(call: call, message: "cannot open Y4M input '\(path)'; check the path after 'y4m:' and its permissions",
                errno: errno)
    }

    /// `path` is something that cannot hold a stream, e.g. a directory.
    static func notAStream(path: String, kind: String) -> IOError {
        IOError(code: .invalidArgument, call: "fstat",
                message: "Y4M input '\(path)' is \(kind), not a stream; name a .y4m file, a FIFO, or '-' for standard input")
    }

    /// `call` (`read`, `fstat`) failed on the input.
    static func readFailed(path: String, call: String = "read", errno: Errno) -> IOError {
        IOError(call: call, message: "reading Y4M input '\(path)' failed", errno: errno)
    }

    /// A system call that is not about the input itself failed (`poll`).
    static func systemCallFailed(call: String, errno: Errno) -> IOError {
        IOError(call: call, message: "\(call) failed for the Y4M input", errno: errno)
    }

    /// The input ended before its first byte.
    static func emptyStream(path: String) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "Y4M input '\(path)' is empty: expected a header starting with 'YUV4MPEG2 '")
    }

    /// The input does not start with `YUV4MPEG2 `; `found` shows its first bytes, quoted.
    static func notY4M(path: String, found: String) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "'\(path)' is not a Y4M stream: expected 'YUV4MPEG2 ', found \(found); "
                    + "convert it with: ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe OUTPUT.y4m")
    }

    /// The input ended inside the header line; `found` is what was there.
    static func truncatedHeader(path: String, found: String) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "Y4M input '\(path)' ends inside its header: got \(found) and no newline")
    }

    /// No newline within the first `limit` bytes of the header.
    static func headerTooLong(path: String, limit: Int) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "Y4M input '\(path)' has no end of header line within \(limit) bytes; the file is corrupt or not Y4M")
    }

    /// A required header tag (`W` or `H`) is absent.
    static func missingTag(_ tag: String) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "Y4M header has no '\(tag)' tag (\(tag == "W" ? "frame width" : "frame height")); it is required")
    }

    /// A header tag's value cannot be used; `tag` is the whole tag as written, e.g. `Wabc`.
    static func malformedTag(_ tag: String, reason: String) -> IOError {
        IOError(code: .malformedInput, call: "read", message: "malformed Y4M header tag '\(tag)': \(reason)")
    }

    /// The `C` tag names a colour space the pipeline does not read; `colourSpace` is its value.
    static func unsupportedColourSpace(_ colourSpace: String) -> IOError {
        IOError(code: .notSupported, call: "read",
                message: "unsupported Y4M colour space 'C\(colourSpace)': 8-bit mono, 420, 420jpeg, 420mpeg2, 420paldv, 422 and 444 "
                    + "are read; convert with: ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe OUTPUT.y4m")
    }

    /// The header describes frames larger than the input accepts.
    static func frameTooLarge(width: Int, height: Int, bytes: Int, limit: Int) -> IOError {
        IOError(code: .notSupported, call: "read",
                message: "Y4M frames of \(width)x\(height) need \(bytes) bytes each, more than the limit of \(limit); scale the video down")
    }

    /// The stream ended inside the `FRAME` line of frame `frame`.
    static func truncatedFrameMarker(frame: UInt64, found: String, offset: Int64) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "frame \(frame): the stream ends inside its FRAME marker at byte offset \(offset) (found \(found))")
    }

    /// Where frame `frame` should start there is something other than a `FRAME` line;
    /// `frameBytes` is the payload size the header implies.
    static func malformedFrameMarker(frame: UInt64, found: String, offset: Int64, frameBytes: Int) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "frame \(frame): expected FRAME, found \(found) at byte offset \(offset); "
                    + "the previous frame may not be the \(frameBytes) bytes the header's size and colour space imply")
    }

    /// The stream ended inside the pixels of frame `frame`.
    static func truncatedFrame(frame: UInt64, expected: Int, got: Int) -> IOError {
        IOError(code: .malformedInput, call: "read",
                message: "frame \(frame) truncated: expected \(expected) bytes, got \(got); the stream ended mid-frame")
    }

    /// `next()` was called before `start()`.
    static func notStarted(uri: String) -> IOError {
        IOError(code: .invalidState, call: "next", message: "\(uri): next() called before start()")
    }

    /// `next()` was called while another call to it was running: a source has one reading thread.
    static func concurrentRead(uri: String) -> IOError {
        IOError(code: .invalidState, call: "next",
                message: "\(uri): next() called while another next() was running; read a source from one thread")
    }
}

/// Bytes as a quoted string a user can read: printable ASCII as is, the rest as `\xNN`,
/// cut after `limit` bytes with `…`.
func quotedBytes(_ bytes: some Collection<UInt8>, limit: Int = 32) -> String {
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
