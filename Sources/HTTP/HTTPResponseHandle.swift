import CMicroHTTPD

/// One `MHD_Response`, destroyed (`MHD_destroy_response`) with its handle: the library keeps its
/// own reference while the response is queued.
final class HTTPResponseHandle {
    let response: OpaquePointer

    /// A response holding a copy of `bytes` (`MHD_create_response_from_buffer`, `MHD_RESPMEM_MUST_COPY`).
    init?(bytes: [UInt8]) {
        // MHD_RESPMEM_MUST_COPY (2): the library copies the bytes before the call returns.
        guard let mustCopy = MHD_ResponseMemoryMode(rawValue: 2) else { return nil }
        let made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), mustCopy)
        }
        guard let made else { return nil }
        response = made
    }

    /// A response of unknown length read from `stream` (`MHD_create_response_from_callback`); the
    /// library releases the stream when the response is done with.
    init?(stream: any HTTPStream, server: HTTPServer) {
        let box = Unmanaged.passRetained(StreamBox(stream: stream, server: server)).toOpaque()
        guard let made = MHD_create_response_from_callback(UInt64.max, 16 * 1024, readStream, box, releaseStream) else {
            Unmanaged<StreamBox>.fromOpaque(box).release()
            return nil
        }
        response = made
    }

    deinit { MHD_destroy_response(response) }

    /// `MHD_add_response_header`.
    func add(header name: String, value: String) { _ = MHD_add_response_header(response, name, value) }
}

/// What the library's stream callbacks get: the stream and the server that counts it.
private final class StreamBox {
    let stream: any HTTPStream
    let server: HTTPServer
    init(stream: any HTTPStream, server: HTTPServer) { (self.stream, self.server) = (stream, server) }
}

/// libmicrohttpd's `MHD_CONTENT_READER_END_OF_STREAM`.
private let contentReaderEndOfStream = -1

private let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return contentReaderEndOfStream }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    switch box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let count): return count
    case .end: return contentReaderEndOfStream
    }
}

private let releaseStream: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
    box.server.streamEnded(box.stream)
}
