import CTurboJPEG
import Media
import SystemCalls

/// Decodes JPEG frames (MJPEG) straight to 8-bit grey with TurboJPEG: only the luma component,
/// no colour conversion (`tjDecompressHeader3`, then `tjDecompress2` to `TJPF_GRAY`).
///
/// Safe from several threads at once: each call borrows a TurboJPEG handle from a small set the
/// decoder keeps (a handle is used by one call at a time), freed in `deinit`. A handle whose call
/// failed is destroyed, not kept: after a fatal error in `tjDecompressHeader3` (a JPEG cut before
/// its scan) TurboJPEG 2.1 answers the next header on that handle with 0x0, which would drop the
/// good frame after a bad one too. The set is behind a
/// `LockedValue` (a pthread mutex, which ThreadSanitizer sees; `Synchronization.Mutex` is a futex
/// it cannot, and two scanning threads decoding at once were reported as a race).
///
/// What counts as a picture: a frame that decodes without a word from libjpeg, or whose only
/// warning is about bytes between segments ("extraneous bytes before marker", which many UVC
/// cameras add; no pixel is lost) is `decoded`. Any other warning (a truncated frame, a data
/// segment cut short, lost restart markers) means part of the picture was filled in by the
/// decoder, so the frame is `undecodable` like one that fails outright: scanning made-up pixels
/// wastes a scanner on a frame the next one, a frame interval later, replaces.
public final class JPEGLumaDecoder: CompressedFrameDecoder, @unchecked Sendable {
    private struct Handle: @unchecked Sendable { let handle: tjhandle }
    private let idle = LockedValue<[Handle]>([])

    public init() {}

    deinit {
        for h in idle.withLock({ $0 }) { TurboJPEG.destroy(h.handle) }
    }

    public func decodeLuma(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                           into luma: UnsafeMutableRawBufferPointer) -> LumaDecodeResult {
        guard compressed.count > 0 else { return .undecodable(cause: "empty frame (no JPEG data)") }
        guard width > 0, height > 0, luma.count >= width * height else {
            return .undecodable(cause: "no room for a \(width)x\(height) grey plane")
        }
        let handle: tjhandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused.handle
        } else {
            switch TurboJPEG.initDecompress() {
            case .success(let h): handle = h
            case .failure(let error): return .undecodable(cause: error.reason)
            }
        }
        var failed = false
        defer {
            if failed { TurboJPEG.destroy(handle) } else { idle.withLock { $0.append(Handle(handle: handle)) } }
        }
        let header: (width: Int, height: Int, subsampling: Int)
        switch TurboJPEG.header(handle, jpeg: compressed) {
        case .success(let h): header = h
        case .failure(let error):
            failed = true
            return .undecodable(cause: error.reason)
        }
        guard header.width > 0, header.height > 0 else {
            return .undecodable(cause: "no frame header (cut short, or not a JPEG)")
        }
        guard header.width == width, header.height == height else {
            return .undecodable(cause: "the JPEG is \(header.width)x\(header.height), the stream \(width)x\(height)")
        }
        switch TurboJPEG.decompressGrey(handle, jpeg: compressed, into: luma, width: width, bytesPerLine: width, height: height) {
        case .success(.decoded):
            return .decoded(warning: nil)
        case .success(.warning(let text)):
            return Self.losesNoPixels(text) ? .decoded(warning: text) : .undecodable(cause: "damaged: " + text)
        case .failure(let error):
            failed = true
            return .undecodable(cause: error.reason)
        }
    }

    /// Whether libjpeg's warning `text` is one after which every pixel was still decoded from the
    /// data (JWRN_EXTRANEOUS_DATA: "Corrupt JPEG data: N extraneous bytes before marker 0xNN").
    static func losesNoPixels(_ text: String) -> Bool {
        text.contains("extraneous bytes before marker")
    }
}
