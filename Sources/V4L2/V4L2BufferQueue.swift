import Logging
import Media
import SystemCalls
import SystemPackage

/// The mmap'd buffers of one streaming session on one open device; unmaps them in `deinit`.
///
/// Created fresh for every open (mappings are never reused across a reopen). A frame lent out
/// keeps the queue — and so its mapping and the device — alive until released; `retire()` stops
/// streaming and turns every later requeue into a no-op, so a frame released after a reopen
/// never touches the new device.
///
/// The driver's buffers are freed (VIDIOC_REQBUFS 0) only after every mapping is gone: libv4l2
/// refuses REQBUFS while a buffer is mapped (`v4l2_check_buffer_change_ok`, EBUSY). `retire()`
/// unmaps and frees at once when no frame is lent out; otherwise `deinit` does, once the last
/// lent frame is released.
public final class V4L2BufferQueue: @unchecked Sendable {  // unchecked: its mmap'd buffers are raw pointers; the state they depend on is behind `state`'s lock
    public let device: V4L2Device
    /// Which open of the device this queue belongs to (1 for the first), for logs.
    public let generation: Int
    private let mappings: [UnsafeMutableRawBufferPointer]
    private let logger: Logger
    private struct State {
        var retired = false
        /// The mappings were unmapped (by `retire()`, with no frame lent out).
        var unmapped = false
        /// Buffers the driver holds (queued, being filled or done and not yet dequeued).
        var inKernel: Set<Int> = []
    }
    private let state = LockedValue(State())

    /// Requests `count` mmap buffers (VIDIOC_REQBUFS), looks each up (VIDIOC_QUERYBUF) and maps it.
    ///
    /// The driver may grant fewer or more; fewer than two is an error (no frame could be
    /// captured while another is being scanned).
    public init(device: V4L2Device, count: Int, generation: Int = 1, logger: Logger) throws(IOError) {
        self.device = device
        self.generation = generation
        self.logger = logger
        let granted = try device.check(device.kernel.requestBuffers(device.descriptor, count: count), "VIDIOC_REQBUFS")
        guard granted >= 2 else {
            _ = device.kernel.requestBuffers(device.descriptor, count: 0)
            throw IOError.v4l2(.resourceExhausted, call: "VIDIOC_REQBUFS", device: device.path,
                               problem: "the driver granted \(granted) mmap buffers of \(count) requested",
                               remedy: "the driver cannot stream with mmap buffers; close other programs using it and retry")
        }
        var mapped: [UnsafeMutableRawBufferPointer] = []
        func unmapAll() {
            for m in mapped { _ = device.kernel.unmap(m.baseAddress!, length: m.count) }
            _ = device.kernel.requestBuffers(device.descriptor, count: 0)
        }
        for index in 0..<granted {
            let location: V4L2BufferLocation
            switch device.kernel.queryBuffer(device.descriptor, index: index) {
            case .success(let l): location = l
            case .failure(let errno): unmapAll(); throw IOError.v4l2(call: "VIDIOC_QUERYBUF", device: device.path, errno: errno)
            }
            switch device.kernel.map(device.descriptor, length: location.length, offset: location.offset) {
            case .success(let address): mapped.append(UnsafeMutableRawBufferPointer(start: address, count: location.length))
            case .failure(let errno): unmapAll(); throw IOError.v4l2(call: "mmap", device: device.path, errno: errno)
            }
        }
        mappings = mapped
    }

    deinit {
        let (retired, unmapped) = state.withLock { ($0.retired, $0.unmapped) }
        guard !unmapped else { return }
        unmapAll()
        if retired { freeBuffers() }
    }

    private func unmapAll() {
        for m in mappings {
            if case .failure(let errno) = device.kernel.unmap(m.baseAddress!, length: m.count) {
                logger.debug("munmap of a capture buffer failed", metadata: ["device": "\(LogText.untrusted(device.path))", "errno": "\(errno)"])
            }
        }
    }

    /// VIDIOC_REQBUFS 0, after `unmapAll()`; a refusal is logged (closing the device frees them too).
    private func freeBuffers() {
        if case .failure(let errno) = device.kernel.requestBuffers(device.descriptor, count: 0) {
            logger.debug("VIDIOC_REQBUFS 0 failed; the buffers are freed when the device closes",
                         metadata: ["device": "\(LogText.untrusted(device.path))", "call": "VIDIOC_REQBUFS", "errno": "\(errno)"])
        }
    }

    /// How many buffers are mapped.
    public var count: Int { mappings.count }

    /// How many buffers the driver holds (not lent out as frames, not dequeued).
    public var buffersInKernel: Int { state.withLock { $0.inKernel.count } }

    /// The bytes of buffer `index`.
    public func bytes(of index: Int) -> UnsafeMutableRawBufferPointer { mappings[index] }

    /// Queues every buffer (VIDIOC_QBUF), before VIDIOC_STREAMON.
    public func queueAll() throws(IOError) {
        for index in mappings.indices {
            try device.check(device.kernel.queueBuffer(device.descriptor, index: index), "VIDIOC_QBUF")
            _ = state.withLock { $0.inKernel.insert(index) }
        }
    }

    /// Takes a filled buffer (VIDIOC_DQBUF); EAGAIN when none is ready.
    public func dequeue() -> Result<V4L2DequeuedBuffer, Errno> {
        let result = device.kernel.dequeueBuffer(device.descriptor)
        if case .success(let buffer) = result {
            guard mappings.indices.contains(buffer.index) else { return .failure(.ioError) }
            _ = state.withLock { $0.inKernel.remove(buffer.index) }
        }
        return result
    }

    /// Gives buffer `index` back to the driver (VIDIOC_QBUF); from any thread.
    ///
    /// A no-op once the queue is retired (the device was stopped, closed or reopened since).
    public func requeue(_ index: Int) {
        state.withLock { state in
            guard !state.retired, !state.inKernel.contains(index) else { return }
            switch device.kernel.queueBuffer(device.descriptor, index: index) {
            case .success: state.inKernel.insert(index)
            case .failure(let errno):
                logger.debug("VIDIOC_QBUF failed; buffer not requeued",
                             metadata: ["device": "\(LogText.untrusted(device.path))", "index": "\(index)", "errno": "\(errno)"])
            }
        }
    }

    /// Stops streaming (VIDIOC_STREAMOFF); with no frame lent out, unmaps the buffers and frees
    /// them (VIDIOC_REQBUFS 0, so a new open may allocate), else leaves that to `deinit`, when the
    /// last lent frame is released (its mapping stays valid until then). Idempotent.
    public func retire() {
        state.withLock { state in
            guard !state.retired else { return }
            state.retired = true
            let lentOut = mappings.count - state.inKernel.count
            state.inKernel.removeAll()
            _ = device.kernel.streamOff(device.descriptor)
            if lentOut == 0 {
                unmapAll()
                freeBuffers()
                state.unmapped = true
            }
        }
    }
}
