import CV4L2

// The lowest layer: each `system_*` calls one shim function and returns its raw result;
// `valueOrErrno` (SystemCalls) turns -1 into the errno and is the one place EINTR is retried.

func system_v4l2_open(_ path: UnsafePointer<CChar>, _ flags: CInt) -> CInt { cv4l2_open(path, flags) }
func system_v4l2_close(_ fd: CInt) -> CInt { cv4l2_close(fd) }
func system_v4l2_mmap(_ length: Int, _ fd: CInt, _ offset: Int64) -> UnsafeMutableRawPointer? { cv4l2_mmap(length, fd, offset) }
func system_v4l2_munmap(_ address: UnsafeMutableRawPointer, _ length: Int) -> CInt { cv4l2_munmap(address, length) }
func system_querycap(_ fd: CInt, _ c: UnsafeMutablePointer<v4l2_capability>) -> CInt { cv4l2_querycap(fd, c) }
func system_enum_fmt(_ fd: CInt, _ f: UnsafeMutablePointer<v4l2_fmtdesc>) -> CInt { cv4l2_enum_fmt(fd, f) }
func system_s_fmt(_ fd: CInt, _ f: UnsafeMutablePointer<v4l2_format>) -> CInt { cv4l2_s_fmt(fd, f) }
func system_reqbufs(_ fd: CInt, _ r: UnsafeMutablePointer<v4l2_requestbuffers>) -> CInt { cv4l2_reqbufs(fd, r) }
func system_querybuf(_ fd: CInt, _ b: UnsafeMutablePointer<v4l2_buffer>) -> CInt { cv4l2_querybuf(fd, b) }
func system_qbuf(_ fd: CInt, _ b: UnsafeMutablePointer<v4l2_buffer>) -> CInt { cv4l2_qbuf(fd, b) }
func system_dqbuf(_ fd: CInt, _ b: UnsafeMutablePointer<v4l2_buffer>) -> CInt { cv4l2_dqbuf(fd, b) }
func system_streamon(_ fd: CInt, _ type: CInt) -> CInt { cv4l2_streamon(fd, type) }
func system_streamoff(_ fd: CInt, _ type: CInt) -> CInt { cv4l2_streamoff(fd, type) }
func system_enum_framesizes(_ fd: CInt, _ s: UnsafeMutablePointer<v4l2_frmsizeenum>) -> CInt { cv4l2_enum_framesizes(fd, s) }
func system_enum_frameintervals(_ fd: CInt, _ i: UnsafeMutablePointer<v4l2_frmivalenum>) -> CInt { cv4l2_enum_frameintervals(fd, i) }
func system_g_parm(_ fd: CInt, _ p: UnsafeMutablePointer<v4l2_streamparm>) -> CInt { cv4l2_g_parm(fd, p) }
func system_s_parm(_ fd: CInt, _ p: UnsafeMutablePointer<v4l2_streamparm>) -> CInt { cv4l2_s_parm(fd, p) }
func system_query_ext_ctrl(_ fd: CInt, _ q: UnsafeMutablePointer<v4l2_query_ext_ctrl>) -> CInt { cv4l2_query_ext_ctrl(fd, q) }
func system_querymenu(_ fd: CInt, _ id: UInt32, _ index: UInt32, _ name: UnsafeMutablePointer<CChar>, _ value: UnsafeMutablePointer<Int64>) -> CInt {
    cv4l2_querymenu_item(fd, id, index, name, value)
}
func system_g_ext_ctrl(_ fd: CInt, _ id: UInt32, _ is64: Bool, _ value: UnsafeMutablePointer<Int64>) -> CInt { cv4l2_g_ext_ctrl(fd, id, is64 ? 1 : 0, value) }
func system_s_ext_ctrl(_ fd: CInt, _ id: UInt32, _ is64: Bool, _ value: Int64) -> CInt { cv4l2_s_ext_ctrl(fd, id, is64 ? 1 : 0, value) }
