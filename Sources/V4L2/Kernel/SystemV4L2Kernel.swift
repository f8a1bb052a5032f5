import CV4L2
import Media
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The real kernel: every call goes through libv4l2 (which converts formats such as MJPEG
/// that the camera offers into ones the application asks for).
public struct SystemV4L2Kernel: V4L2Kernel {
    public init() {}

    private static let captureType = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    private static let mmapMemory = V4L2_MEMORY_MMAP.rawValue

    public func open(_ path: String) -> Result<CInt, Errno> {
        valueOrErrno { system_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
    }

    public func close(_ fd: CInt) -> Result<Void, Errno> {
        valueOrErrno(retryOnInterrupt: false) { system_v4l2_close(fd) }.map { _ in () }
    }

    public func queryCapability(_ fd: CInt) -> Result<V4L2Capability, Errno> {
        var c = v4l2_capability()
        return valueOrErrno { system_querycap(fd, &c) }.map { _ in
            V4L2Capability(driver: cString(&c.driver), card: cString(&c.card), busInfo: cString(&c.bus_info),
                           version: c.version, capabilities: V4L2Capabilities(rawValue: c.capabilities),
                           deviceCapabilities: V4L2Capabilities(rawValue: c.device_caps))
        }
    }

    public func enumerateFormat(_ fd: CInt, index: Int) -> Result<V4L2FormatDescription, Errno> {
        var f = v4l2_fmtdesc()
        f.index = UInt32(index)
        f.type = Self.captureType
        return valueOrErrno { system_enum_fmt(fd, &f) }.map { _ in
            V4L2FormatDescription(index: index, fourcc: FourCC(rawValue: f.pixelformat), description: cString(&f.description),
                                  isCompressed: f.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                                  isEmulated: f.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0)
        }
    }

    public func enumerateFrameSize(_ fd: CInt, fourcc: FourCC, index: Int) -> Result<V4L2FrameSize, Errno> {
        var s = v4l2_frmsizeenum()
        s.index = UInt32(index)
        s.pixel_format = fourcc.rawValue
        return valueOrErrno { system_enum_framesizes(fd, &s) }.map { _ in
            if s.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                return .discrete(width: Int(s.discrete.width), height: Int(s.discrete.height))
            }
            let w = s.stepwise
            return .stepwise(minWidth: Int(w.min_width), maxWidth: Int(w.max_width), stepWidth: max(1, Int(w.step_width)),
                             minHeight: Int(w.min_height), maxHeight: Int(w.max_height), stepHeight: max(1, Int(w.step_height)),
                             continuous: s.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue)
        }
    }

    public func enumerateFrameInterval(_ fd: CInt, fourcc: FourCC, width: Int, height: Int, index: Int) -> Result<V4L2FrameInterval, Errno> {
        var i = v4l2_frmivalenum()
        i.index = UInt32(index)
        i.pixel_format = fourcc.rawValue
        i.width = UInt32(clamping: width)
        i.height = UInt32(clamping: height)
        return valueOrErrno { system_enum_frameintervals(fd, &i) }.map { _ in
            if i.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue { return .discrete(fraction(i.discrete)) }
            return .stepwise(minimum: fraction(i.stepwise.min), maximum: fraction(i.stepwise.max), step: fraction(i.stepwise.step))
        }
    }

    public func setFormat(_ fd: CInt, _ format: V4L2PixelFormat) -> Result<V4L2PixelFormat, Errno> {
        var f = v4l2_format()
        f.type = Self.captureType
        f.fmt.pix.width = UInt32(clamping: format.width)
        f.fmt.pix.height = UInt32(clamping: format.height)
        f.fmt.pix.pixelformat = format.fourcc.rawValue
        f.fmt.pix.field = format.field
        f.fmt.pix.bytesperline = UInt32(clamping: format.bytesPerLine)
        return valueOrErrno { system_s_fmt(fd, &f) }.map { _ in pixelFormat(f.fmt.pix) }
    }

    public func getFrameInterval(_ fd: CInt) -> Result<V4L2Fraction?, Errno> {
        var p = v4l2_streamparm()
        p.type = Self.captureType
        return valueOrErrno { system_g_parm(fd, &p) }.map { _ in timePerFrame(p) }
    }

    public func setFrameInterval(_ fd: CInt, _ interval: V4L2Fraction) -> Result<V4L2Fraction?, Errno> {
        var p = v4l2_streamparm()
        p.type = Self.captureType
        p.parm.capture.timeperframe = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
        return valueOrErrno { system_s_parm(fd, &p) }.map { _ in timePerFrame(p) }
    }

    public func queryNextControl(_ fd: CInt, after id: UInt32) -> Result<V4L2ControlDescription, Errno> {
        var q = v4l2_query_ext_ctrl()
        q.id = id | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        return valueOrErrno { system_query_ext_ctrl(fd, &q) }.map { _ in
            V4L2ControlDescription(id: q.id, name: cString(&q.name), type: V4L2ControlType(rawValue: q.type), minimum: q.minimum,
                                   maximum: q.maximum, step: q.step, defaultValue: q.default_value,
                                   flags: V4L2ControlFlags(rawValue: q.flags))
        }
    }

    public func queryMenuItem(_ fd: CInt, control id: UInt32, index: Int64, type: V4L2ControlType) -> Result<V4L2MenuItem, Errno> {
        var name = [CChar](repeating: 0, count: 33)
        var value: Int64 = 0
        return valueOrErrno { system_querymenu(fd, id, UInt32(truncatingIfNeeded: index), &name, &value) }.map { _ in
            type == .integerMenu ? V4L2MenuItem(index: index, value: value)
                : V4L2MenuItem(index: index, name: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    public func getControl(_ fd: CInt, id: UInt32, type: V4L2ControlType) -> Result<Int64, Errno> {
        var value: Int64 = 0
        // A bitmask is a __u32 in the union's __s32 `value`: read back unsigned.
        return valueOrErrno { system_g_ext_ctrl(fd, id, type == .integer64, &value) }.map { _ in
            type == .bitmask ? Int64(UInt32(truncatingIfNeeded: value)) : value
        }
    }

    public func setControl(_ fd: CInt, id: UInt32, type: V4L2ControlType, value: Int64) -> Result<Void, Errno> {
        valueOrErrno { system_s_ext_ctrl(fd, id, type == .integer64, value) }.map { _ in () }
    }

    public func requestBuffers(_ fd: CInt, count: Int) -> Result<Int, Errno> {
        var r = v4l2_requestbuffers()
        r.count = UInt32(clamping: count)
        r.type = Self.captureType
        r.memory = Self.mmapMemory
        return valueOrErrno { system_reqbufs(fd, &r) }.map { _ in Int(r.count) }
    }

    public func queryBuffer(_ fd: CInt, index: Int) -> Result<V4L2BufferLocation, Errno> {
        var b = buffer(index: index)
        return valueOrErrno { system_querybuf(fd, &b) }.map { _ in
            V4L2BufferLocation(index: index, length: Int(b.length), offset: Int64(b.m.offset))
        }
    }

    public func queueBuffer(_ fd: CInt, index: Int) -> Result<Void, Errno> {
        var b = buffer(index: index)
        return valueOrErrno { system_qbuf(fd, &b) }.map { _ in () }
    }

    public func dequeueBuffer(_ fd: CInt) -> Result<V4L2DequeuedBuffer, Errno> {
        var b = buffer(index: 0)
        return valueOrErrno { system_dqbuf(fd, &b) }.map { _ in
            let timestamp = V4L2DequeuedBuffer.timestamp(seconds: Int64(b.timestamp.tv_sec), microseconds: Int64(b.timestamp.tv_usec))
            return V4L2DequeuedBuffer(index: Int(b.index), bytesUsed: Int(b.bytesused), flags: b.flags,
                                      sequence: b.sequence, timestamp: timestamp)
        }
    }

    public func streamOn(_ fd: CInt) -> Result<Void, Errno> {
        valueOrErrno { system_streamon(fd, CInt(Self.captureType)) }.map { _ in () }
    }

    public func streamOff(_ fd: CInt) -> Result<Void, Errno> {
        valueOrErrno { system_streamoff(fd, CInt(Self.captureType)) }.map { _ in () }
    }

    public func map(_ fd: CInt, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        if let address = system_v4l2_mmap(length, fd, offset) { return .success(address) }
        return .failure(Errno(rawValue: Glibc.errno))
    }

    public func unmap(_ address: UnsafeMutableRawPointer, length: Int) -> Result<Void, Errno> {
        valueOrErrno { system_v4l2_munmap(address, length) }.map { _ in () }
    }

    public func poll(device: CInt?, wakeDescriptor: CInt, timeout: Duration) -> Result<V4L2PollEvents, Errno> {
        let pollSet = PollSet([FileDescriptor(rawValue: wakeDescriptor)] + (device.map { [FileDescriptor(rawValue: $0)] } ?? []))
        return pollSet.wait(timeout: timeout).map { _ in
            var events: V4L2PollEvents = []
            if pollSet.events(at: 0).contains(.input) { events.insert(.wakeUp) }
            if device != nil {
                let found = pollSet.events(at: 1)
                if found.contains(.input) { events.insert(.readable) }
                if !found.isDisjoint(with: [.error, .hangUp, .invalid]) { events.insert(.error) }
            }
            return events
        }
    }

    private func buffer(index: Int) -> v4l2_buffer {
        var b = v4l2_buffer()
        b.type = Self.captureType
        b.memory = Self.mmapMemory
        b.index = UInt32(index)
        return b
    }
}

private func cString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

private func fraction(_ f: v4l2_fract) -> V4L2Fraction {
    V4L2Fraction(numerator: f.numerator, denominator: f.denominator)
}

private func pixelFormat(_ p: v4l2_pix_format) -> V4L2PixelFormat {
    V4L2PixelFormat(width: Int(p.width), height: Int(p.height), fourcc: FourCC(rawValue: p.pixelformat),
                    bytesPerLine: Int(p.bytesperline), sizeImage: Int(p.sizeimage), field: p.field)
}

private func timePerFrame(_ p: v4l2_streamparm) -> V4L2Fraction? {
    guard p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return nil }
    let f = fraction(p.parm.capture.timeperframe)
    return f.numerator > 0 && f.denominator > 0 ? f : nil
}
