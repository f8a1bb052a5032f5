import Evdev
import SystemCalls
import Testing

@Suite struct DeviceErrorTests {
    @Test func aMissingUInputNodeSaysToLoadTheModule() {
        do {
            _ = try VirtualKeyboard(name: "syncscan keyboard", keys: USKeymap.keys, uinputPath: "/nonexistent/uinput")
            Issue.record("a keyboard was made through a missing node")
        } catch {
            #expect(error.code == .notFound && error.call == "open")
            #expect(error.description.hasPrefix("/nonexistent/uinput: cannot create the virtual keyboard 'syncscan keyboard': no such device: load the uinput module (modprobe uinput"))
            #expect(error.description.hasSuffix("(open: No such file or directory, ENOENT)"))
        }
    }

    @Test func aFileThatIsNoUInputNodeIsRefusedByTheKernelCall() throws {
        // /dev/null opens read/write but takes no uinput ioctl.
        do {
            _ = try VirtualKeyboard(name: "k", keys: USKeymap.keys, uinputPath: "/dev/null")
            Issue.record("a keyboard was made through /dev/null")
        } catch {
            #expect(error.call == "libevdev_uinput_create_from_device", "\(error)")
        }
    }

    @Test func aMissingInputDeviceNamesTheKey() {
        do {
            _ = try InputDevice(path: "/nonexistent/event9")
            Issue.record("a missing device was opened")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.description.contains("/nonexistent/event9: no such input device: check trigger.key.device"))
        }
    }

    @Test func aFileThatIsNoEvdevNodeIsNotAnInputDevice() {
        do {
            _ = try InputDevice(path: "/dev/null")
            Issue.record("/dev/null was opened as an input device")
        } catch {
            #expect(error.call == "libevdev_new_from_fd", "\(error)")
            #expect(error.description.contains("not an evdev input device"), "\(error)")
        }
    }
}
