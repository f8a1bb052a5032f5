import CEvdev

// The lowest layer: each `system_*` calls one shim function and returns its raw result (a
// negative errno on failure, libevdev's convention); `EvdevCalls` turns that into `Errno`.

func system_evdev_new() -> OpaquePointer? { cevdev_new() }
func system_evdev_free(_ dev: OpaquePointer) { cevdev_free(dev) }
func system_evdev_new_from_fd(_ fd: CInt, _ dev: UnsafeMutablePointer<OpaquePointer?>) -> CInt { cevdev_new_from_fd(fd, dev) }
func system_evdev_set_name(_ dev: OpaquePointer, _ name: String) { cevdev_set_name(dev, name) }
func system_evdev_get_name(_ dev: OpaquePointer) -> UnsafePointer<CChar>? { cevdev_get_name(dev) }
func system_evdev_enable_event_type(_ dev: OpaquePointer, _ type: UInt32) -> CInt { cevdev_enable_event_type(dev, type) }
func system_evdev_enable_event_code(_ dev: OpaquePointer, _ type: UInt32, _ code: UInt32) -> CInt {
    cevdev_enable_event_code(dev, type, code)
}
func system_evdev_has_event_code(_ dev: OpaquePointer, _ type: UInt32, _ code: UInt32) -> CInt { cevdev_has_event_code(dev, type, code) }
func system_evdev_next_event(_ dev: OpaquePointer, _ type: inout UInt32, _ code: inout UInt32, _ value: inout CInt) -> CInt {
    cevdev_next_event(dev, &type, &code, &value)
}
func system_evdev_next_sync_event(_ dev: OpaquePointer) -> CInt { cevdev_next_sync_event(dev) }
func system_evdev_event_code_from_name(_ type: UInt32, _ name: String) -> CInt { cevdev_event_code_from_name(type, name) }
func system_evdev_event_code_get_name(_ type: UInt32, _ code: UInt32) -> UnsafePointer<CChar>? { cevdev_event_code_get_name(type, code) }
func system_uinput_create(_ dev: OpaquePointer, _ fd: CInt, _ uinput: UnsafeMutablePointer<OpaquePointer?>) -> CInt {
    cevdev_uinput_create(dev, fd, uinput)
}
func system_uinput_destroy(_ uinput: OpaquePointer) { cevdev_uinput_destroy(uinput) }
func system_uinput_write_event(_ uinput: OpaquePointer, _ type: UInt32, _ code: UInt32, _ value: CInt) -> CInt {
    cevdev_uinput_write_event(uinput, type, code, value)
}
func system_uinput_devnode(_ uinput: OpaquePointer) -> UnsafePointer<CChar>? { cevdev_uinput_devnode(uinput) }
