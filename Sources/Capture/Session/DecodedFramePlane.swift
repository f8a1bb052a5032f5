import Media

/// A scanning thread's grey plane for compressed frames (MJPEG): the frame is decoded into it
/// through the decoder the frame carries, and its source buffer is released as soon as the decode
/// returns (a camera's mmap buffer is held no longer than that).
///
/// When pixels may be copied for the results handlers, the compressed bytes are kept too, in a
/// second buffer of the thread's, so a snapshot of the whole frame can be the camera's JPEG. One
/// per scanning thread; the buffers grow to the largest frame seen and are freed in `deinit`.
final class DecodedFramePlane {
    private var luma = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var compressed = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var compressedCount = 0

    deinit {
        luma.deallocate()
        compressed.deallocate()
    }

    /// Decodes `frame` (consumed: its buffer goes back to the source when this returns) to a grey
    /// frame over this plane, valid until the next call; or the decoder's cause when it gives no picture.
    /// - Parameter keepBytes: keep the compressed bytes for `compressedBytes`.
    func decode(_ frame: consuming VideoFrame, keepBytes: Bool) -> Result<VideoFrame, UndecodableFrame> {
        let (width, height, sequence, time, cameraTime) = (frame.width, frame.height, frame.sequenceNumber, frame.presentationTime, frame.cameraTime)
        compressedCount = 0
        guard let decoder = frame.decoder else {
            return .failure(UndecodableFrame(cause: "\(frame.format) frame without a decoder"))
        }
        let needed = width * height
        if luma.count < needed {
            luma.deallocate()
            luma = .allocate(byteCount: max(needed, 1), alignment: 64)
        }
        let plane = luma
        let result = frame.buffer.withUnsafeBytes { bytes -> LumaDecodeResult in
            if keepBytes { keep(bytes) }
            return decoder.decodeLuma(bytes, width: width, height: height, into: plane)
        }
        _ = consume frame
        switch result {
        case .undecodable(let cause):
            return .failure(UndecodableFrame(cause: cause))
        case .decoded:
            return .success(VideoFrame(sequenceNumber: sequence, presentationTime: time, width: width, height: height, bytesPerLine: width,
                                       format: .grey, buffer: PixelBuffer(bytes: UnsafeRawBufferPointer(rebasing: plane[0..<needed])) {},
                                       cameraTime: cameraTime))
        }
    }

    /// The compressed bytes of the last frame decoded with `keepBytes`; valid until the next `decode`.
    var compressedBytes: UnsafeRawBufferPointer? {
        compressedCount > 0 ? UnsafeRawBufferPointer(rebasing: compressed[0..<compressedCount]) : nil
    }

    private func keep(_ bytes: UnsafeRawBufferPointer) {
        if compressed.count < bytes.count {
            compressed.deallocate()
            compressed = .allocate(byteCount: bytes.count, alignment: 64)
        }
        if bytes.count > 0 { compressed.copyMemory(from: bytes) }
        compressedCount = bytes.count
    }
}

/// A compressed frame that gave no picture, and why (the decoder's words).
struct UndecodableFrame: Error, Sendable {
    var cause: String
}
