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
public final class JPEGLumaDecoder: CompressedFrameDecoder, Sendable {
    private struct Handle: @unchecked Sendable { let handle: tjhandle }  // unchecked: a TurboJPEG handle, used by one thread at a time (taken from `idle`, given back)
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
        return withHandle { handle, failed in
            if let problem = Self.checkHeader(handle, compressed, width: width, height: height, failed: &failed) { return .undecodable(cause: problem) }
            switch TurboJPEG.decompressGrey(handle, jpeg: compressed, into: luma, width: width, bytesPerLine: width, height: height) {
            case .success(.decoded):
                return .decoded(warning: nil)
            case .success(.warning(let text)):
                return Self.losesNoPixels(text) ? .decoded(warning: text) : .undecodable(cause: "damaged: " + text)
            case .failure(let error):
                failed = true
                return .undecodable(cause: error.reason)
            }
        } ?? .undecodable(cause: "no TurboJPEG decompressor (tjInitDecompress failed)")
    }

    /// The eighth-scale grey picture: `tjDecompress2` to `TJPF_GRAY` at TurboJPEG's 1/8 scaling
    /// factor, which takes each 8×8 block's DC coefficient (its mean) and skips the inverse DCT.
    public func decodeLumaEighth(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                                 into luma: UnsafeMutableRawBufferPointer) -> Bool {
        let small = EighthScale.size(width: width, height: height)
        guard compressed.count > 0, width > 0, height > 0, luma.count >= small.width * small.height else { return false }
        return withHandle { handle, failed in
            guard Self.checkHeader(handle, compressed, width: width, height: height, failed: &failed) == nil else { return false }
            switch TurboJPEG.decompressGrey(handle, jpeg: compressed, into: luma, width: small.width, bytesPerLine: small.width, height: small.height) {
            case .success(.decoded): return true
            case .success(.warning(let text)): return Self.losesNoPixels(text)
            case .failure:
                failed = true
                return false
            }
        } ?? false
    }

    /// Runs `body` with a handle borrowed from the set (a new one when none is idle; `nil` when
    /// `tjInitDecompress` fails); a handle whose call `failed` is destroyed, not returned.
    private func withHandle<R>(_ body: (tjhandle, inout Bool) -> R) -> R? {
        let handle: tjhandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused.handle
        } else {
            guard case .success(let h) = TurboJPEG.initDecompress() else { return nil }
            handle = h
        }
        var failed = false
        let result = body(handle, &failed)
        if failed { TurboJPEG.destroy(handle) } else { idle.withLock { $0.append(Handle(handle: handle)) } }
        return result
    }

    /// Why the JPEG's header rules it out for a `width`×`height` stream (`tjDecompressHeader3`); `nil` when it fits.
    private static func checkHeader(_ handle: tjhandle, _ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                                    failed: inout Bool) -> String? {
        let header: (width: Int, height: Int, subsampling: Int)
        switch TurboJPEG.header(handle, jpeg: compressed) {
        case .success(let h): header = h
        case .failure(let error):
            failed = true
            return error.reason
        }
        guard header.width > 0, header.height > 0 else { return "no frame header (cut short, or not a JPEG)" }
        guard header.width == width, header.height == height else {
            return "the JPEG is \(header.width)x\(header.height), the stream \(width)x\(height)"
        }
        return nil
    }

    /// Whether libjpeg's warning `text` is one after which every pixel was still decoded from the
    /// data (JWRN_EXTRANEOUS_DATA: "Corrupt JPEG data: N extraneous bytes before marker 0xNN").
    static func losesNoPixels(_ text: String) -> Bool {
        text.contains("extraneous bytes before marker")
    }
}
