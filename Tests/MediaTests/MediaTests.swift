import Foundation
import Testing
import TestSupport
@testable import Media

@Suite(.offThePool) struct PixelFormatTests {
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

    /// At every small size, odd and even, the frame size is the Y4M plane layout counted plane
    /// by plane: luma W×H, then two chroma planes of ⌈W/2⌉×⌈H/2⌉ (4:2:0), ⌈W/2⌉×H (4:2:2) or W×H (4:4:4).
    @Test(arguments: [(PixelFormat.grey, 0, 0), (.yuv420, 1, 1), (.yuv422p, 1, 0), (.yuv444p, 0, 0)])
    func frameSizeIsTheY4MPlaneLayout(format: PixelFormat, halvedWidth: Int, halvedHeight: Int) {
        for width in 1...17 {
            for height in 1...13 {
                let chromaWidth = halvedWidth == 1 ? (width + 1) / 2 : width
                let chromaHeight = halvedHeight == 1 ? (height + 1) / 2 : height
                let planes = width * height + (format == .grey ? 0 : 2 * chromaWidth * chromaHeight)
                #expect(format.frameSize(width: width, height: height, bytesPerLine: width) == planes, "\(format) \(width)x\(height)")
            }
        }
    }

    @Test func v4l2FourCCsMapBothWays() {
        for format in PixelFormat.allCases where format != .yuv444p {
            #expect(format.v4l2FourCC.flatMap(PixelFormat.init(v4l2FourCC:)) == format)
        }
        #expect(PixelFormat.yuv420.v4l2FourCC == "YU12" && PixelFormat.yuv444p.v4l2FourCC == nil)
        #expect(PixelFormat(v4l2FourCC: "YUV444P") == nil && PixelFormat(v4l2FourCC: "H264") == nil)
        #expect(PixelFormat(v4l2FourCC: "MJPG") == .mjpeg && PixelFormat.mjpeg.isCompressed && PixelFormat.allCases.filter(\.isCompressed) == [.mjpeg])
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
            // A compressed frame has no rows: it is decoded to a grey plane before any is read.
            #expect(format.minimumBytesPerLine(width: 10) == (format.isCompressed ? 0 : 10 * format.lumaLayout.step))
        }
    }
}

@Suite(.offThePool) struct MediaTimeTests {
    @Test func secondsAndNanosecondsAgree() {
        #expect(MediaTime(seconds: 1.5).nanoseconds == 1_500_000_000)
        #expect(MediaTime(nanoseconds: 33_333_333).seconds == 0.033333333)
        #expect(MediaTime(seconds: 2) - MediaTime(seconds: 0.5) == MediaTime(seconds: 1.5))
        #expect(MediaTime(seconds: 0.25) + MediaTime(seconds: 0.5) < MediaTime(seconds: 1))
    }

    @Test func descriptionIsExactDecimalSeconds() {
        #expect(MediaTime(nanoseconds: 0).description == "0")
        #expect(MediaTime(nanoseconds: 1).description == "0.000000001")
        #expect(MediaTime(nanoseconds: 33_333_333).description == "0.033333333")
        #expect(MediaTime(nanoseconds: -1_500_000_000).description == "-1.5")
        #expect(MediaTime(nanoseconds: .min).description == "-9223372036.854775808")
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

@Suite(.offThePool) struct PixelBufferTests {
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
        #expect(copy!.buffer.copiedBytes == [1, 2, 3, 4])
        #expect(copy!.info == FrameInfo(sequenceNumber: 7, presentationTime: MediaTime(seconds: 0.7), width: 2, height: 2, format: .grey))
        frame = nil
        #expect(released.value == 0, "a copy of the frame still holds the buffer")
        copy = nil
        #expect(released.value == 1)
    }
}

@Suite(.offThePool) struct SourceURITests {
    @Test func descriptionIsTheFamilyAndLocationUnlessWrittenOtherwise() {
        #expect(SourceURI(family: "y4m", location: "clip.y4m").description == "y4m:clip.y4m")
        #expect(SourceURI(family: "gst", location: "rtsp://cam/stream", written: "rtsp://cam/stream").description == "rtsp://cam/stream")
    }

    @Test func passwordsAreRedactedWhereverAURLHoldsOne() {
        let uri = SourceURI(family: "gst", location: "rtsp://admin:s3cr3t@10.0.0.5:554/stream?x=1", written: "rtsp://admin:s3cr3t@10.0.0.5:554/stream?x=1")
        #expect(uri.description == "rtsp://admin:***@10.0.0.5:554/stream?x=1")
        #expect(uri.location.contains("s3cr3t"), "the library still gets the credential")
        #expect(SourceURI.redactingCredentials("gst:rtspsrc location=rtsp://u:pw@h/p user-pw=other ! appsink")
                == "gst:rtspsrc location=rtsp://u:***@h/p user-pw=*** ! appsink")
        // A user without a password, an '@' in the path and text without a URL are kept.
        #expect(SourceURI.redactingCredentials("rtsp://viewer@cam/a@b") == "rtsp://viewer@cam/a@b")
        #expect(SourceURI.redactingCredentials("/dev/video0") == "/dev/video0")
        #expect(SourceURI.redactingCredentials("http://a:b@x/ and https://c:d@y:8443/z") == "http://a:***@x/ and https://c:***@y:8443/z")
    }

    @Test func anErrorShowsTheURIWithoutItsPassword() {
        let error = SourceURIError(uri: "rtsp://user:hunter2@127.0.0.1:8554/test", reason: "expected …")
        #expect(error.description == "unsupported source \"rtsp://user:***@127.0.0.1:8554/test\": expected …")
        #expect(!"\(error)".contains("hunter2"))
    }
}

@Suite(.offThePool) struct DecimalTextTests {
    @Test func integerUnitsAreWrittenExactly() {
        #expect(DecimalText.string(units: 12_500_000_000, fractionDigits: 9) == "12.5")
        #expect(DecimalText.string(units: -1, fractionDigits: 3) == "-0.001")
        #expect(DecimalText.string(units: 30_000, fractionDigits: 3, minimumFractionDigits: 3) == "30.000")
        #expect(DecimalText.string(units: 42, fractionDigits: 0) == "42")
    }

    @Test func doublesAreRoundedToTheirDecimals() {
        #expect(DecimalText.string(29.97, fractionDigits: 3) == "29.97")
        #expect(DecimalText.string(1000, fractionDigits: 3) == "1000")
        #expect(DecimalText.string(1.0 / 30, fractionDigits: 3, minimumFractionDigits: 3) == "0.033")
        #expect(DecimalText.string(0.25, fractionDigits: 1, minimumFractionDigits: 1) == "0.3")
        #expect(DecimalText.string(-0.0004, fractionDigits: 3) == "0")
        #expect(DecimalText.string(.infinity, fractionDigits: 3) == "inf")
    }
}

@Suite(.offThePool) struct URLAuthorityTests {
    @Test func theAuthorityEndsAtThePathQueryOrFragmentAndItsUserinfoAtTheLastAt() throws {
        let url = try #require(URLAuthority("rtsp://user:p@ss@[::1]:8554/live/main?x=a@b#f"))
        #expect(url.scheme == "rtsp" && url.userinfo == "user:p@ss" && url.hostAndPort == "[::1]:8554" && url.host == "::1")
        #expect(url.rest == "/live/main?x=a@b#f" && url.path == "/live/main")
        // An '@' after the authority is not a userinfo's, unless asked (to the URL's last '@').
        let query = try #require(URLAuthority("https://hooks.example?to=a@b"))
        #expect(query.userinfo == nil && query.host == "hooks.example")
        let long = try #require(URLAuthority("rtsp://u:p/w?d#@cam:554/live?x=1", userinfoToLastAt: true))
        #expect(long.userinfo == "u:p/w?d#" && long.hostAndPort == "cam:554" && long.rest == "/live?x=1")
        // In a description the URL also ends where the caller says; no "://", no URL.
        let described = try #require(URLAuthority("location=rtsp://u:pw@cam port=1", alsoEndingAt: " "))
        #expect(described.prefix == "location=rtsp://" && described.hostAndPort == "cam" && described.rest == " port=1")
        #expect(URLAuthority("/dev/video0") == nil && URLAuthority("file:/data/a.mp4") == nil)
        #expect(URLAuthority("http://")?.hostAndPort == "" && URLAuthority("http://u:pw@")?.hostAndPort == "")
    }
}
