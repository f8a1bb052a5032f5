import Media
import SystemPackage

/// The system calls a V4L2 capture needs, one method per ioctl: the seam tests replace.
///
/// `SystemV4L2Kernel` issues them through libv4l2; a fake kernel in the tests plays a driver
/// (frames, formats, unplugs) behind the same calls. Every call returns the errno the kernel
/// (or libv4l2) reported; EINTR is already retried.
public protocol V4L2Kernel: Sendable {
    /// `v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)`.
    func open(_ path: String) -> Result<CInt, Errno>
    /// `v4l2_close`; never retried on EINTR (the descriptor is gone either way on Linux).
    func close(_ fd: CInt) -> Result<Void, Errno>
    /// VIDIOC_QUERYCAP.
    func queryCapability(_ fd: CInt) -> Result<V4L2Capability, Errno>
    /// VIDIOC_ENUM_FMT for video capture at `index`; EINVAL past the last one.
    func enumerateFormat(_ fd: CInt, index: Int) -> Result<V4L2FormatDescription, Errno>
    /// VIDIOC_ENUM_FRAMESIZES at `index`; EINVAL past the last one.
    func enumerateFrameSize(_ fd: CInt, fourcc: FourCC, index: Int) -> Result<V4L2FrameSize, Errno>
    /// VIDIOC_ENUM_FRAMEINTERVALS at `index`; EINVAL past the last one.
    func enumerateFrameInterval(_ fd: CInt, fourcc: FourCC, width: Int, height: Int, index: Int) -> Result<V4L2FrameInterval, Errno>
    /// VIDIOC_S_FMT (video capture); returns the format the driver chose, which may differ.
    func setFormat(_ fd: CInt, _ format: V4L2PixelFormat) -> Result<V4L2PixelFormat, Errno>
    /// VIDIOC_G_PARM: the time per frame, `nil` if the driver cannot set it (no V4L2_CAP_TIMEPERFRAME).
    func getFrameInterval(_ fd: CInt) -> Result<V4L2Fraction?, Errno>
    /// VIDIOC_S_PARM with `timeperframe`; returns the interval the driver chose.
    func setFrameInterval(_ fd: CInt, _ interval: V4L2Fraction) -> Result<V4L2Fraction?, Errno>
    /// VIDIOC_REQBUFS for `count` mmap buffers (0 frees them); returns the count granted.
    func requestBuffers(_ fd: CInt, count: Int) -> Result<Int, Errno>
    /// VIDIOC_QUERYBUF of mmap buffer `index`.
    func queryBuffer(_ fd: CInt, index: Int) -> Result<V4L2BufferLocation, Errno>
    /// VIDIOC_QBUF of mmap buffer `index`.
    func queueBuffer(_ fd: CInt, index: Int) -> Result<Void, Errno>
    /// VIDIOC_DQBUF; EAGAIN when no buffer is ready (the descriptor is non-blocking).
    func dequeueBuffer(_ fd: CInt) -> Result<V4L2DequeuedBuffer, Errno>
    /// VIDIOC_STREAMON (video capture).
    func streamOn(_ fd: CInt) -> Result<Void, Errno>
    /// VIDIOC_STREAMOFF (video capture); returns every buffer to the application.
    func streamOff(_ fd: CInt) -> Result<Void, Errno>
    /// `v4l2_mmap` of a buffer, read/write, shared.
    func map(_ fd: CInt, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno>
    /// `v4l2_munmap`.
    func unmap(_ address: UnsafeMutableRawPointer, length: Int) -> Result<Void, Errno>
    /// VIDIOC_QUERY_EXT_CTRL with `V4L2_CTRL_FLAG_NEXT_CTRL`: the first control after `id` (0:
    /// the first of all); EINVAL past the last. The description's `menu` is empty.
    func queryNextControl(_ fd: CInt, after id: UInt32) -> Result<V4L2ControlDescription, Errno>
    /// VIDIOC_QUERYMENU of item `index` of menu control `id`; EINVAL for an index the driver skips.
    func queryMenuItem(_ fd: CInt, control id: UInt32, index: Int64, type: V4L2ControlType) -> Result<V4L2MenuItem, Errno>
    /// VIDIOC_G_EXT_CTRLS of one control's current value.
    func getControl(_ fd: CInt, id: UInt32, type: V4L2ControlType) -> Result<Int64, Errno>
    /// VIDIOC_S_EXT_CTRLS of one control's value, as given (not `v4l2_set_control`, which rescales
    /// to 0–65535). ERANGE or EINVAL out of range, EACCES while an automatic mode holds it (UVC).
    func setControl(_ fd: CInt, id: UInt32, type: V4L2ControlType, value: Int64) -> Result<Void, Errno>
    /// `poll` on `device` (POLLIN; skipped when `nil`) and `wakeDescriptor` for up to `timeout`.
    ///
    /// Empty result: the timeout passed. With `device == nil` this is an interruptible sleep.
    func poll(device: CInt?, wakeDescriptor: CInt, timeout: Duration) -> Result<V4L2PollEvents, Errno>
}
