import CTurboJPEG

/// The TurboJPEG calls, each returning the library's answer or a `JPEGError` naming the call and
/// `tjGetErrorStr2`'s reason. Pointers are used only for the duration of a call.
enum TurboJPEG {
    /// A compressor handle (`tjInitCompress`).
    static func initCompress() -> Result<tjhandle, JPEGError> {
        guard let handle = cturbojpeg_init_compress() else {
            return .failure(JPEGError(call: "tjInitCompress", reason: reason(nil)))
        }
        return .success(handle)
    }

    static func destroy(_ handle: tjhandle) { _ = cturbojpeg_destroy(handle) }

    /// The largest JPEG a `width`×`height` image with `subsampling` can become (`tjBufSize`).
    static func bufferSize(width: Int, height: Int, subsampling: TJSAMP) -> Int {
        Int(cturbojpeg_buffer_size(Int32(width), Int32(height), Int32(subsampling.rawValue)))
    }

    /// `tjCompress2` of 8-bit grey rows into `out`; the JPEG's size in bytes.
    static func compressGrey(_ handle: tjhandle, rows: UnsafeRawBufferPointer, width: Int, bytesPerLine: Int, height: Int,
                             quality: Int, into out: UnsafeMutableRawBufferPointer) -> Result<Int, JPEGError> {
        var size = UInt(out.count)
        let status = cturbojpeg_compress_grey(handle, rows.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width),
                                              Int32(bytesPerLine), Int32(height), Int32(quality),
                                              out.baseAddress!.assumingMemoryBound(to: UInt8.self), &size)
        return status == 0 ? .success(Int(size)) : .failure(JPEGError(call: "tjCompress2", reason: reason(handle)))
    }

    /// `tjCompressFromYUVPlanes` of Y, Cb and Cr planes (`subsampling`) into `out`; the JPEG's size in bytes.
    static func compressPlanes(_ handle: tjhandle, y: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer,
                               width: Int, lumaBytesPerLine: Int, chromaBytesPerLine: Int, height: Int, subsampling: TJSAMP,
                               quality: Int, into out: UnsafeMutableRawBufferPointer) -> Result<Int, JPEGError> {
        var size = UInt(out.count)
        let status = cturbojpeg_compress_planes(
            handle, y.assumingMemoryBound(to: UInt8.self), cb.assumingMemoryBound(to: UInt8.self), cr.assumingMemoryBound(to: UInt8.self),
            Int32(width), Int32(lumaBytesPerLine), Int32(chromaBytesPerLine), Int32(height), Int32(subsampling.rawValue),
            Int32(quality), out.baseAddress!.assumingMemoryBound(to: UInt8.self), &size)
        return status == 0 ? .success(Int(size)) : .failure(JPEGError(call: "tjCompressFromYUVPlanes", reason: reason(handle)))
    }

    /// Splits packed 4:2:2 rows into Y (`width` per row), Cb and Cr (`(width + 1) / 2` per row) planes.
    static func splitPacked422(_ source: UnsafeRawPointer, width: Int, height: Int, bytesPerLine: Int,
                               offsets: (luma: Int, cb: Int, cr: Int), y: UnsafeMutableRawPointer,
                               cb: UnsafeMutableRawPointer, cr: UnsafeMutableRawPointer) {
        cturbojpeg_split_packed422(source.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(bytesPerLine),
                                   Int32(offsets.luma), Int32(offsets.cb), Int32(offsets.cr), y.assumingMemoryBound(to: UInt8.self),
                                   cb.assumingMemoryBound(to: UInt8.self), cr.assumingMemoryBound(to: UInt8.self))
    }

    /// Splits interleaved chroma rows (CbCr when `cbFirst`, else CrCb) into Cb and Cr planes of `columns` per row.
    static func splitInterleavedChroma(_ source: UnsafeRawPointer, columns: Int, rows: Int, bytesPerLine: Int, cbFirst: Bool,
                                       cb: UnsafeMutableRawPointer, cr: UnsafeMutableRawPointer) {
        cturbojpeg_split_interleaved_chroma(source.assumingMemoryBound(to: UInt8.self), Int32(columns), Int32(rows),
                                            Int32(bytesPerLine), cbFirst ? 1 : 0, cb.assumingMemoryBound(to: UInt8.self),
                                            cr.assumingMemoryBound(to: UInt8.self))
    }

    /// `tjGetErrorStr2(handle)`.
    private static func reason(_ handle: tjhandle?) -> String {
        cturbojpeg_error(handle).map { String(cString: $0) } ?? "no reason given"
    }
}
