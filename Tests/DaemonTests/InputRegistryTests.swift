import ConfigurationKeys
import Daemon
import Media
import Testing

/// The input registry: each family's forms, the scheme owning its text, the refusals, redaction.
@Suite(.offThePool) struct InputRegistryTests {
    @Test func y4mFormsNameAFileAPipeOrStandardInput() throws {
        for (text, path) in [("y4m:/tmp/a.y4m", "/tmp/a.y4m"), ("y4m:clip", "clip"), ("y4m:-", "-"), ("-", "-"),
                             ("relative/clip.Y4M", "relative/clip.Y4M"), ("/dev/shm/clip.y4m", "/dev/shm/clip.y4m")] {
            let uri = try InputRegistry.parse(text)
            #expect(uri.family == "y4m" && uri.location == path, "\(text)")
        }
    }

    @Test func v4l2FormsNameADeviceNode() throws {
        for (text, path) in [("/dev/video0", "/dev/video0"), ("v4l2:/dev/video2", "/dev/video2"), ("v4l2:///dev/video2", "/dev/video2"),
                             ("/dev/v4l/by-id/usb-Cam_123-video-index0", "/dev/v4l/by-id/usb-Cam_123-video-index0"),
                             // An explicit scheme wins over the .y4m suffix.
                             ("v4l2:/dev/odd.y4m", "/dev/odd.y4m")] {
            let uri = try InputRegistry.parse(text)
            #expect(uri.family == "v4l2" && uri.location == path, "\(text)")
        }
    }

    @Test func descriptionIsTheSchemeAndPath() throws {
        #expect(try InputRegistry.parse("clip.y4m").description == "y4m:clip.y4m")
        #expect(try InputRegistry.parse("v4l2:///dev/video2").description == "v4l2:/dev/video2")
        #expect(try InputRegistry.parse("/dev/video0").description == "v4l2:/dev/video0")
    }

    @Test(arguments: ["", "video0", "ftp://camera/stream", "/tmp/camera", "/dev/", "y4m:", "v4l2:", "v4l2:video0", "v4l2:/", "clip\0.y4m"])
    func unusableTextIsRefusedWithTheAcceptedForms(text: String) {
        let error = #expect(throws: SourceURIError.self) { try InputRegistry.parse(text) }
        #expect(error?.uri == text)
        #expect(error?.description.hasPrefix("unsupported source \"") == true)
        // Every refusal says what to write instead.
        #expect(error?.description.contains("/dev/videoN") == true || error?.description.contains("- for stdin") == true,
                "\(String(describing: error))")
    }

    @Test func aRefusedURIIsShownWithoutItsPassword() async throws {
        let text = "ftp://user:hunter2@127.0.0.1:8554/test"
        let error = #expect(throws: SourceURIError.self) { try InputRegistry.parse(text) }
        #expect(error?.description.hasPrefix("unsupported source \"ftp://user:***@127.0.0.1:8554/test\": expected ") == true,
                "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("hunter2") } == false)
        // And through the configuration reader, as `run` and `check-config` print it.
        let problems = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_SOURCE": text])
        #expect(problems.count == 1 && problems.allSatisfy { $0.contains("ftp://user:***@127.0.0.1") && !$0.contains("hunter2") }, "\(problems)")
    }

    @Test func eachFamilyOwnsItsSchemeAndSaysWhetherItIsLive() throws {
        #expect(Set(InputRegistry.families.map(\.name)).isSuperset(of: ["y4m", "v4l2"]))
        #expect(InputRegistry.isLive("/dev/video0") == true)
        let file = try TemporaryConfigFile("YUV4MPEG2 W2 H2 F1:1 Cmono\n", name: "clip.y4m")
        #expect(InputRegistry.isLive(file.path) == false, "a regular file: every frame scanned")
        #expect(InputRegistry.isLive("y4m:/nonexistent/clip.y4m") == nil)
        #expect(InputRegistry.versionLines.contains { $0.hasPrefix("libv4l2 ") })
    }
}

/// `rtsp.transport`, `rtsp.latency_ms` and `rtsp.camera_time`: read, checked, and a change reopens the source.
@Suite(.offThePool) struct RTSPConfigurationTests {
    @Test func theKeysAreReadAndCheckedAndAChangeReopensTheSource() async throws {
        let file = try TemporaryConfigFile("source: rtsp://cam/live\nrtsp:\n  transport: udp\n  latency_ms: 50\n  camera_time: true\n")
        let configuration = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(configuration.rtsp.transport == .udp && configuration.rtsp.latencyMilliseconds == 50 && configuration.rtsp.cameraTime)
        #expect(SyncscanConfiguration().rtsp.transport == .tcp && SyncscanConfiguration().rtsp.latencyMilliseconds == 200)
        #expect(SyncscanConfiguration().rtsp.cameraTime == false, "off unless asked")
        let problems = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_RTSP_TRANSPORT": "quic", "SYNCSCAN_RTSP_LATENCY_MS": "-1",
                                                                               "SYNCSCAN_RTSP_CAMERA_TIME": "sometimes"])
        #expect(problems.count == 3 && problems.contains { $0.contains("quic") && $0.contains("tcp, udp") }
                && problems.contains { $0.contains("rtsp.latency_ms") } && problems.contains { $0.contains("rtsp.camera_time") }, "\(problems)")
    }
}
