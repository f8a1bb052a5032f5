import Foundation
import Testing
import TestSupport
import V4L2

/// Runs only where a real V4L2 capture node exists: inside the vivid VM, where
/// `scripts/test-vivid.sh` runs this suite with VIVID_CAPTURE_DEV=/dev/video0.
/// Serialized: the capture test expects to be the device's only user.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["VIVID_CAPTURE_DEV"] != nil), .offThePool)
struct RealDeviceTests {
    private var device: String { ProcessInfo.processInfo.environment["VIVID_CAPTURE_DEV"] ?? "/dev/video0" }

    @Test func capturesFramesThroughLibv4l2() throws {
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "v4l2:" + device, configuration: .init(pixelFormat: .yuyv), logger: recorder.logger)
        try source.start()
        let format = try #require(source.currentFormat)
        var first: (sequence: UInt64, nanoseconds: Int64)?
        var last: (sequence: UInt64, nanoseconds: Int64)?
        var frames = 0
        while frames < 10, let event = try source.next() {
            guard let frame = event.frame else { continue }
            #expect(frame.width == format.width && frame.height == format.height && frame.format == .yuyv)
            #expect(frame.bytesPerLine >= 2 * frame.width)
            #expect(frame.buffer.count >= frame.bytesPerLine * frame.height)
            if let last {
                // The kernel's numbers never go back; vivid under emulation repeats one now and
                // then (v4l2-ctl shows it too: 6 7 7 8), which the capture session leaves out.
                #expect(frame.sequenceNumber >= last.sequence)
                #expect(frame.presentationTime.nanoseconds >= last.nanoseconds)
            }
            last = (frame.sequenceNumber, frame.presentationTime.nanoseconds)
            if first == nil { first = last }
            frames += 1
        }
        source.stop()
        #expect(frames == 10)
        // Ten frames span more than one sequence number and more than one instant.
        #expect(first.map { f in last.map { $0.sequence > f.sequence && $0.nanoseconds > f.nanoseconds } ?? false } ?? false)
        #expect(recorder.messages(at: .notice).contains("camera streaming"))
    }

    /// vivid's controls through the real ioctls: listed with their names, set by name
    /// (VIDIOC_S_EXT_CTRLS, also a 64-bit one and a menu item by name) and read back through a
    /// second descriptor (the driver keeps them, not the file).
    @Test func setsControlsByNameAndReadsThemBackThroughAnotherDescriptor() throws {
        let device = try V4L2Device(path: device)
        let controls = try device.controls()
        let names = Set(controls.map(\.configurationName))
        for expected in ["brightness", "contrast", "saturation", "hue"] { #expect(names.contains(expected), "\(names.sorted())") }
        var settings = [V4L2ControlSetting(name: "brightness", value: "200"), V4L2ControlSetting(name: "contrast", value: "17")]
        let wide = controls.first { $0.type == .integer64 && $0.isSettable }
        if let wide { settings.append(V4L2ControlSetting(name: wide.configurationName, value: String(min(wide.maximum, 1 << 40)))) }
        let menu = controls.first { $0.type == .menu && $0.isSettable && $0.menu.count > 1 }
        let item = menu?.menu.last { $0.index != menu?.defaultValue }
        if let menu, let item, let name = item.name { settings.append(V4L2ControlSetting(name: menu.configurationName, value: name)) }
        #expect(device.apply(settings, controls: controls).isEmpty)

        let other = try V4L2Device(path: self.device)
        let now = Dictionary(uniqueKeysWithValues: try other.controls().map { ($0.configurationName, other.value(of: $0)) })
        #expect(now["brightness"] == 200 && now["contrast"] == 17, "\(now)")
        if let wide { #expect(now[wide.configurationName] == min(wide.maximum, 1 << 40), "a 64-bit value through value64") }
        if let menu, let item { #expect(now[menu.configurationName] == item.index, "the menu item set by its name") }
        #expect(wide != nil && menu != nil, "vivid has a 64-bit and a menu test control")
        for control in try other.controls() where control.type == .bitmask {
            let value = try #require(other.value(of: control))
            #expect(value >= 0 && value <= control.maximum, "\(control.name): a bitmask reads back unsigned (\(value))")
        }
        // Back to the defaults, so later captures see vivid's usual picture.
        _ = device.apply(controls.filter { ["brightness", "contrast"].contains($0.configurationName) }
            .map { V4L2ControlSetting(name: $0.configurationName, value: String($0.defaultValue)) }, controls: controls)
    }

    @Test func listsTheDeviceWithFormatsAndSizes() throws {
        let devices = listCaptureDevices()
        let described = try #require(devices.first { $0.path == device })
        #expect(described.error == nil && described.driver == "vivid")
        #expect(described.formats.contains { $0.fourcc == .yuyv && !$0.sizes.isEmpty })
        #expect(renderDeviceList(devices).contains("\(device): vivid (driver vivid"))
    }
}
