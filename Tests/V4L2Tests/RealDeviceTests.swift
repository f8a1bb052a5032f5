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

    @Test func listsTheDeviceWithFormatsAndSizes() throws {
        let devices = listCaptureDevices()
        let described = try #require(devices.first { $0.path == device })
        #expect(described.error == nil && described.driver == "vivid")
        #expect(described.formats.contains { $0.fourcc == .yuyv && !$0.sizes.isEmpty })
        #expect(renderDeviceList(devices).contains("\(device): vivid (driver vivid"))
    }
}
