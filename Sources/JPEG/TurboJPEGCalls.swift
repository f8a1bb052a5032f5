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

    /// A decompressor handle (`tjInitDecompress`).
    static func initDecompress() -> Result<tjhandle, JPEGError> {
        guard let handle = cturbojpeg_init_decompress() else {
            return .failure(JPEGError(call: "tjInitDecompress", reason: reason(nil)))
        }
        return .success(handle)
    }

    static func destroy(_ handle: tjhandle) { _ = cturbojpeg_destroy(handle) }

    /// A JPEG's width, height and chroma subsampling (`tjDecompressHeader3`).
    static func header(_ handle: tjhandle, jpeg: UnsafeRawBufferPointer) -> Result<(width: Int, height: Int, subsampling: Int), JPEGError> {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0
        let status = cturbojpeg_decompress_header(handle, jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                                  &width, &height, &subsampling)
        return status == 0 ? .success((Int(width), Int(height), Int(subsampling)))
            : .failure(JPEGError(call: "tjDecompressHeader3", reason: reason(handle)))
    }

    /// What `tjDecompress2` to grey made of a JPEG.
    enum GreyDecode {
        case decoded
        /// `TJERR_WARNING`: the picture was filled, some of it possibly with grey; the library's words.
        case warning(String)
    }

    /// `tjDecompress2` of `jpeg` to 8-bit grey rows `bytesPerLine` apart in `out`.
    static func decompressGrey(_ handle: tjhandle, jpeg: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer,
                               width: Int, bytesPerLine: Int, height: Int) -> Result<GreyDecode, JPEGError> {
        let status = cturbojpeg_decompress_grey(handle, jpeg.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                                out.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width),
                                                Int32(bytesPerLine), Int32(height))
        if status == 0 { return .success(.decoded) }
        if cturbojpeg_error_code(handle) == Int32(TJERR_WARNING.rawValue) { return .success(.warning(reason(handle))) }
        return .failure(JPEGError(call: "tjDecompress2", reason: reason(handle)))
    }

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
