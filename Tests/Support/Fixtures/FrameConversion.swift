import Media

extension GreyFrame {
    /// The frame's pixels laid out as `format`, rows `bytesPerLine` bytes long, as a camera would deliver them.
    ///
    /// Luma is the grey value. Chroma is deliberately not neutral (packed: U = 0x2A, V = 0xD5;
    /// planar chroma planes: alternating 0x00/0xFF) so a reader that takes chroma for luma
    /// fails. Row padding is filled with `padding`. `bytesPerLine` defaults to this frame's own
    /// stride for GREY (padding bytes kept as they are) and to the format's minimum otherwise.
    /// - Returns: the bytes (`format.frameSize(...)` long) and the luma stride used.
    public func bytes(as format: PixelFormat, bytesPerLine requested: Int? = nil,
                      padding: UInt8 = 0x80) -> (bytes: [UInt8], bytesPerLine: Int) {
        if format == .grey && (requested == nil || requested == bytesPerLine) {
            return (bytes, bytesPerLine)
        }
        let stride = requested ?? format.minimumBytesPerLine(width: width)
        precondition(stride >= format.minimumBytesPerLine(width: width),
                     "bytesPerLine \(stride) is below the minimum \(format.minimumBytesPerLine(width: width)) for \(format) at width \(width)")
        let total = format.frameSize(width: width, height: height, bytesPerLine: stride)
        var out = [UInt8](repeating: padding, count: total)
        let (offset, step) = format.lumaLayout
        // Unsafe buffers: these loops run over every pixel of test frames up to 1080p in debug builds.
        out.withUnsafeMutableBufferPointer { dstBuffer in
            bytes.withUnsafeBufferPointer { srcBuffer in
                let dst = dstBuffer.baseAddress!, src = srcBuffer.baseAddress!
                for y in 0..<height {
                    let row = dst + y * stride, source = src + y * bytesPerLine
                    if step == 1 {
                        row.update(from: source, count: width)
                        continue
                    }
                    let luma = row + offset, chroma = row + (1 - offset)
                    for x in 0..<width {
                        luma[2 &* x] = source[x]
                        // The other byte of each sample: U for even pixels, V for odd ones.
                        chroma[2 &* x] = x & 1 == 0 ? 0x2A : 0xD5
                    }
                }
                if step == 1 {
                    for i in (stride * height)..<total { dst[i] = i & 1 == 0 ? 0x00 : 0xFF }
                }
            }
        }
        return (out, stride)
    }

    /// The frame as a `VideoFrame` in `format` (see `bytes(as:bytesPerLine:padding:)`), in its own buffer.
    public func videoFrame(format: PixelFormat = .grey, bytesPerLine: Int? = nil, padding: UInt8 = 0x80,
                           sequenceNumber: UInt64 = 0, presentationTime: MediaTime = .zero) -> VideoFrame {
        let (data, stride) = bytes(as: format, bytesPerLine: bytesPerLine, padding: padding)
        // One memcpy into a buffer the PixelBuffer frees: `PixelBuffer(copying:)` goes element by
        // element in debug builds (about 0.8 s for a 1080p YUYV frame).
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 64)
        data.withUnsafeBytes { storage.copyMemory(from: $0) }
        let buffer = PixelBuffer(bytes: UnsafeRawBufferPointer(rebasing: storage[0..<data.count])) { storage.deallocate() }
        return VideoFrame(sequenceNumber: sequenceNumber, presentationTime: presentationTime, width: width, height: height,
                          bytesPerLine: stride, format: format, buffer: buffer)
    }
}
