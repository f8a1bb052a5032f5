import Foundation
import Testing
@testable import Media

@Suite struct PixelFormatTests {
    @Test func frameSizesFollowTheV4L2AndY4MPlaneLayouts() {
        // 4x2 at the minimal stride, and 3x3 (odd: chroma rounds up) with a padded stride of 8.
        #expect(PixelFormat.grey.frameSize(width: 4, height: 2, bytesPerLine: 4) == 8)
        #expect(PixelFormat.yuyv.frameSize(width: 4, height: 2, bytesPerLine: 8) == 16)
        #expect(PixelFormat.nv12.frameSize(width: 4, height: 2, bytesPerLine: 4) == 8 + 2 * 2 * 1)
        #expect(PixelFormat.yuv420.frameSize(width: 3, height: 3, bytesPerLine: 3) == 9 + 2 * 2 * 2)
        #expect(PixelFormat.yuv422p.frameSize(width: 4, height: 2, bytesPerLine: 4) == 8 + 2 * 2 * 2)
        #expect(PixelFormat.yuv444p.frameSize(width: 4, height: 2, bytesPerLine: 4) == 24)
        #expect(PixelFormat.grey.frameSize(width: 3, height: 3, bytesPerLine: 8) == 24)
    }

    @Test func lumaIsInPlaceForPlanarFormatsAndInterleavedForPacked422() {
        for format in PixelFormat.allCases {
            switch format {
            case .yuyv:
                #expect(format.lumaLayout == (0, 2) && !format.hasPlanarLuma)
            case .uyvy:
                #expect(format.lumaLayout == (1, 2) && !format.hasPlanarLuma)
            default:
                #expect(format.lumaLayout == (0, 1) && format.hasPlanarLuma, "\(format)")
            }
            #expect(format.minimumBytesPerLine(width: 10) == 10 * format.lumaLayout.step)
        }
    }
}

@Suite struct MediaTimeTests {
    @Test func secondsAndNanosecondsAgree() {
        #expect(MediaTime(seconds: 1.5).nanoseconds == 1_500_000_000)
        #expect(MediaTime(nanoseconds: 33_333_333).seconds == 0.033333333)
        #expect(MediaTime(seconds: 2) - MediaTime(seconds: 0.5) == MediaTime(seconds: 1.5))
        #expect(MediaTime(seconds: 0.25) + MediaTime(seconds: 0.5) < MediaTime(seconds: 1))
    }

    @Test func theMonotonicClockNeverGoesBack() {
        var last = MediaTime.monotonicNow()
        for _ in 0..<1000 {
            let now = MediaTime.monotonicNow()
            #expect(now >= last)
            last = now
        }
        #expect(last > .zero)
    }
}

@Suite struct PixelBufferTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.withLock { n += 1 } }
        var value: Int { lock.withLock { n } }
    }

    @Test func releaseRunsExactlyOnceWhenTheLastFrameCopyGoesAway() {
        let released = Counter()
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        storage.copyBytes(from: [1, 2, 3, 4])
        var frame: VideoFrame? = VideoFrame(
            sequenceNumber: 7, presentationTime: MediaTime(seconds: 0.7), width: 2, height: 2, bytesPerLine: 2,
            format: .grey, buffer: PixelBuffer(bytes: UnsafeRawBufferPointer(storage)) { storage.deallocate(); released.add() })
        var copy = frame
        #expect(Array(copy!.buffer.bytes) == [1, 2, 3, 4])
        #expect(copy!.info == FrameInfo(sequenceNumber: 7, presentationTime: MediaTime(seconds: 0.7), width: 2, height: 2, format: .grey))
        frame = nil
        #expect(released.value == 0, "a copy of the frame still holds the buffer")
        copy = nil
        #expect(released.value == 1)
    }
}

@Suite struct SourceURITests {
    @Test func y4mFormsNameAFileAPipeOrStandardInput() throws {
        #expect(try SourceURI(parsing: "y4m:/tmp/a.y4m") == .y4m(path: "/tmp/a.y4m"))
        #expect(try SourceURI(parsing: "y4m:clip") == .y4m(path: "clip"))
        #expect(try SourceURI(parsing: "y4m:-") == .y4m(path: "-"))
        #expect(try SourceURI(parsing: "-") == .y4m(path: "-"))
        #expect(try SourceURI(parsing: "relative/clip.Y4M") == .y4m(path: "relative/clip.Y4M"))
        #expect(try SourceURI(parsing: "/dev/shm/clip.y4m") == .y4m(path: "/dev/shm/clip.y4m"))
    }

    @Test func v4l2FormsNameADeviceNode() throws {
        #expect(try SourceURI(parsing: "/dev/video0") == .v4l2(devicePath: "/dev/video0"))
        #expect(try SourceURI(parsing: "v4l2:/dev/video2") == .v4l2(devicePath: "/dev/video2"))
        #expect(try SourceURI(parsing: "v4l2:///dev/video2") == .v4l2(devicePath: "/dev/video2"))
        #expect(try SourceURI(parsing: "/dev/v4l/by-id/usb-Cam_123-video-index0") == .v4l2(devicePath: "/dev/v4l/by-id/usb-Cam_123-video-index0"))
        // An explicit scheme wins over the .y4m suffix.
        #expect(try SourceURI(parsing: "v4l2:/dev/odd.y4m") == .v4l2(devicePath: "/dev/odd.y4m"))
    }

    @Test func descriptionIsTheSchemeAndPath() throws {
        #expect(try SourceURI(parsing: "clip.y4m").description == "y4m:clip.y4m")
        #expect(try SourceURI(parsing: "v4l2:///dev/video2").description == "v4l2:/dev/video2")
        #expect(try SourceURI(parsing: "/dev/video0").description == "v4l2:/dev/video0")
    }

    @Test(arguments: ["", "video0", "rtsp://camera/stream", "/tmp/camera", "/dev/", "y4m:", "v4l2:", "v4l2:video0", "v4l2:/", "clip\0.y4m"])
    func unusableTextIsRefusedWithTheAcceptedForms(text: String) {
        let error = #expect(throws: SourceURIError.self) { try SourceURI(parsing: text) }
        #expect(error?.uri == text)
        #expect(error?.description.hasPrefix("unsupported source \"") == true)
        // Every refusal says what to write instead.
        #expect(error?.description.contains("/dev/videoN") == true || error?.description.contains("- for stdin") == true,
                "\(String(describing: error))")
    }
}
