import Foundation
import SystemCalls
import Testing
import TestSupport
import V4L2

@Suite(.offThePool) struct DeviceListingTests {
    private func camera() -> FakeV4L2Kernel {
        FakeV4L2Kernel(driver: .init(formats: [
            .init(.yuyv, "YUYV 4:2:2", sizes: [.discrete(width: 640, height: 480), .discrete(width: 320, height: 240)],
                  intervals: [V4L2Fraction(numerator: 1, denominator: 30), V4L2Fraction(numerator: 1, denominator: 15)]),
            .init(.mjpeg, "Motion-JPEG", compressed: true,
                  sizes: [.stepwise(minWidth: 16, maxWidth: 1920, stepWidth: 16, minHeight: 16, maxHeight: 1080, stepHeight: 8, continuous: false)]),
        ]))
    }

    @Test func describesCardFormatsSizesAndRates() throws {
        let fake = camera()
        let devices = listCaptureDevices(paths: ["/dev/video0"], kernel: fake)
        let device = try #require(devices.first)
        #expect(devices.count == 1)
        #expect(device.card == "Fake Camera" && device.driver == "fakev4l2" && device.busInfo == "platform:fake-0" && device.error == nil)
        #expect(device.formats.map(\.fourcc) == [.yuyv, .mjpeg])
        #expect(device.formats[0].sizes.map { "\($0.width)x\($0.height)" } == ["640x480", "320x240"])
        #expect(device.formats[0].sizes[0].intervals.map(\.framesPerSecond) == [30, 15])
        #expect(device.formats[1].compressed && device.formats[1].sizes[0].kind == "stepwise")
        let text = device.text
        #expect(text.hasPrefix("/dev/video0: Fake Camera (driver fakev4l2, bus platform:fake-0)"))
        #expect(text.contains("\t[0]: 'YUYV' (YUYV 4:2:2)\n\t\tSize: Discrete 640x480\n\t\t\tInterval: Discrete 0.033s (30.000 fps)"))
        #expect(text.contains("\t[1]: 'MJPG' (Motion-JPEG, compressed)\n\t\tSize: Stepwise 16x16 - 1920x1080 with step 16/8"))
        #expect(fake.liveDescriptors == 0)
    }

    @Test func marksTheModeRunChoosesWithTheConfigurationAndWhy() throws {
        let devices = listCaptureDevices(paths: ["/dev/video0"], kernel: FakeV4L2Kernel(driver: .logitechC615()))
        let chosen = try #require(devices.first?.chosen)
        #expect(chosen.fourcc == .mjpeg && chosen.width == 1280 && chosen.height == 720 && chosen.framesPerSecond == 30)
        #expect(chosen.why == "1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size (device.fps 30 (default), device.min_fps 10, within 1280x720)")
        let text = try #require(devices.first?.text)
        #expect(text.contains("\trun chooses (marked *): 1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size"))
        #expect(text.contains("'MJPG' (Motion-JPEG, compressed)\n\t\tSize: Discrete 640x480\n"))
        #expect(text.contains("\t\tSize: Discrete 1280x720 *\n\t\t\tInterval: Discrete 0.033s (30.000 fps)"))
        #expect(text.components(separatedBy: " *\n").count == 2, "one size marked")

        var slowYUYV = V4L2CaptureSource.Configuration()
        slowYUYV.pixelFormat = .yuyv
        slowYUYV.framesPerSecond = 6
        let narrowed = try #require(listCaptureDevices(paths: ["/dev/video0"], kernel: FakeV4L2Kernel(driver: .logitechC615()),
                                                       configuration: slowYUYV).first?.chosen)
        #expect(narrowed.fourcc == .yuyv && narrowed.width == 1280 && narrowed.framesPerSecond == 5)
        #expect(narrowed.why.hasSuffix("(device.fourcc YUYV, device.fps 6, device.min_fps 10, within 1280x720)"))

        var lacking = V4L2CaptureSource.Configuration()
        (lacking.width, lacking.height) = (1920, 1080)
        let refused = try #require(listCaptureDevices(paths: ["/dev/video0"], kernel: FakeV4L2Kernel(driver: .logitechC615()),
                                                      configuration: lacking).first)
        #expect(refused.chosen == nil && refused.chosenProblem?.hasPrefix("the camera has no 1920x1080; it offers ") == true)
        #expect(refused.text.contains("\trun cannot start: the camera has no 1920x1080"))
        let json = String(decoding: try JSONEncoder().encode(devices), as: UTF8.self)
        #expect(json.contains("\"chosen\":{") && json.contains("\"why\":\"1280x720 MJPG at 30 fps"))
    }

    @Test func jsonRoundTripsWithFourCCsAsText() throws {
        let devices = listCaptureDevices(paths: ["/dev/video0"], kernel: camera())
        let json = try JSONEncoder().encode(devices)
        #expect(String(decoding: json, as: UTF8.self).contains("\"fourcc\":\"YUYV\""))
        #expect(try JSONDecoder().decode([V4L2DeviceDescription].self, from: json) == devices)
    }

    @Test func unopenableNodesAreListedWithTheReasonAndAbsentOnesLeftOut() {
        let fake = camera()
        fake.inject(.permissionDenied, into: .open)
        let devices = listCaptureDevices(paths: ["/dev/video0", "/dev/video1"], kernel: fake)
        #expect(devices.count == 1)
        #expect(devices.first?.error?.contains("permission denied") == true)
        #expect(devices.first?.text.hasPrefix("/dev/video0: unavailable: permission denied") == true)
        #expect(devices.first?.text.hasSuffix("(open: Permission denied, EACCES)") == true)
    }

    @Test func nonCaptureNodesAreLeftOut() {
        var driver = FakeV4L2Kernel.Driver.smallCamera()
        driver.capability.deviceCapabilities = [.metadataCapture, .streaming]
        #expect(listCaptureDevices(paths: ["/dev/video0"], kernel: FakeV4L2Kernel(driver: driver)).isEmpty)
        #expect(renderDeviceList([]).contains("no video capture devices"))
    }
}

@Suite(.offThePool) struct DevicePathTests {
    @Test func acceptsDevicePathsAndV4L2URIs() throws {
        let cases = [("/dev/video0", "/dev/video0"), ("v4l2:/dev/video2", "/dev/video2"), ("v4l2:///dev/video2", "/dev/video2"),
                     ("/dev/v4l/by-id/usb-Cam_123-video-index0", "/dev/v4l/by-id/usb-Cam_123-video-index0")]
        for (uri, path) in cases {
            let source = try V4L2CaptureSource(path: uri, kernel: FakeV4L2Kernel(), logger: LogRecorder().logger)
            #expect(source.path == path && source.uri == "v4l2:" + path)
        }
    }

    @Test func rejectsOtherSchemesAndRelativePaths() {
        for bad in ["", "v4l2:", "v4l2:video0", "video0", "rtsp://camera/stream", "y4m:/tmp/a.y4m"] {
            let error = #expect(throws: IOError.self) {
                try V4L2CaptureSource(path: bad, kernel: FakeV4L2Kernel(), logger: LogRecorder().logger)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.description.contains("/dev/videoN") == true, "\(bad): \(String(describing: error))")
        }
    }

    @Test func rejectsOutOfRangeConfiguration() {
        var configuration = V4L2CaptureSource.Configuration()
        configuration.bufferCount = 1
        let error = #expect(throws: IOError.self) {
            try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: FakeV4L2Kernel(), logger: LogRecorder().logger)
        }
        #expect(error?.code == .invalidArgument && error?.description.contains("buffer count 1") == true)
    }

    @Test func errorsNameCallDeviceErrnoAndRemedy() {
        let busy = IOError.v4l2(call: "VIDIOC_STREAMON", device: "/dev/video0", errno: .resourceBusy)
        #expect(busy.code == .busy && busy.call == "VIDIOC_STREAMON" && busy.cause == .resourceBusy)
        #expect(busy.description == "/dev/video0: device busy: another program is using it — stop it or pick another device "
                + "(VIDIOC_STREAMON: Device or resource busy, EBUSY)")
        #expect(IOError.v4l2(call: "VIDIOC_DQBUF", device: "/dev/video0", errno: .operationNotSupportedByDevice).code == .disconnected)
        #expect(IOError.v4l2(call: "VIDIOC_DQBUF", device: "/dev/video0", errno: .ioError).code == .disconnected)
        #expect(IOError.v4l2(call: "VIDIOC_S_FMT", device: "/dev/video0", errno: .invalidArgument).code == .refused)
    }
}
