import Capture
import Decoders
import Foundation
import JPEG
import Logging
import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

/// A camera the session treats as a file: every frame waits for a scanner (none dropped as late),
/// so which frames are scanned does not depend on timing. The session is run with fewer frames in
/// flight than the camera has buffers (`inFlight`): the fake driver's poll does not wake when a
/// released buffer is queued again, as a real driver's does once it has filled it.
private final class EveryFrameSource: FrameSource, @unchecked Sendable {
    let camera: V4L2CaptureSource
    init(_ camera: V4L2CaptureSource) { self.camera = camera }
    var uri: String { camera.uri }
    var isLive: Bool { false }
    func start() throws { try camera.start() }
    func next() throws -> SourceEvent? { try camera.next() }
    func stop() { camera.stop() }
    var report: SourceReport { camera.report }
}

private final class Collections: @unchecked Sendable {
    private let lock = NSLock()
    private var _all: [SynchronizedDataCollection] = []
    var all: [SynchronizedDataCollection] { lock.withLock { _all } }
    func append(_ c: SynchronizedDataCollection) { lock.withLock { _all.append(c) } }
}

/// Two scanning threads and one queued frame: 3 frames in flight, the fourth buffer for the source.
private let inFlight = VideoDataOutput(alwaysDiscardsLateVideoFrames: false, maximumQueuedFrames: 1)

private var mjpegConfiguration: V4L2CaptureSource.Configuration {
    var configuration = V4L2CaptureSource.Configuration.fast
    configuration.maximumWidth = 320
    configuration.maximumHeight = 240
    return configuration
}

@Suite(.offThePool) struct MJPEGCaptureTests {
    @Test func mjpegFramesAreCapturedAsMJPEGAndDecodedToGreyOnTheScanningThread() async throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "SYNCSCAN MJPEG", moduleSize: 4)
        let fake = FakeV4L2Kernel(driver: .mjpegOnlyCamera(frames: { _ in jpeg }))
        let camera = try V4L2CaptureSource(path: "/dev/video0", configuration: mjpegConfiguration, kernel: fake,
                                           frameDecoder: JPEGLumaDecoder(), logger: LogRecorder().logger)
        let collections = Collections()
        let session = CaptureSession(input: EveryFrameSource(camera), videoDataOutput: inFlight,
                                     metadataOutput: MetadataOutput(settings: .init(engine: .zbar), scanningThreads: 2), pixelsRequest: .frame, logger: Logger(label: "test"))
        let stats = try await session.run(synchronizer: DataOutputSynchronizer { collections.append($0) }, frameLimit: 6)
        let out = collections.all
        #expect(out.map(\.sequenceNumber) == Array(0...5))
        #expect(stats.scanned == 6)
        for c in out {
            #expect(c.video.frame?.format == .mjpeg && c.video.frame?.width == 320)
            #expect(c.metadata?.metadataObjects.map(\.text) == ["SYNCSCAN MJPEG"])
            #expect(c.metadata?.metadataObjects.first?.frame.format == .mjpeg)
            // The whole frame's copy keeps the camera's JPEG, byte for byte, beside the grey plane.
            #expect(c.video.pixels?.cameraJPEG == jpeg && c.video.pixels?.format == .grey)
        }
        #expect(fake.setFormatRequests.last?.fourcc == .mjpeg)
        #expect(fake.queuedBuffers == 0 && fake.liveMappings == 0, "every buffer back and unmapped after the run")
    }

    @Test func everyBadFrameIsACountedDropWithItsCauseLoggedOnceAndTheNextFrameIsScanned() async throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "AFTER A BAD FRAME", moduleSize: 4)
        let script: [FakeV4L2Kernel.Step] = [.frame, .short, .frame, .empty, .frame, .garbage, .frame, .short, .frame]
        let fake = FakeV4L2Kernel(driver: .mjpegOnlyCamera(frames: { _ in jpeg }), script: script)
        let recorder = LogRecorder()
        let camera = try V4L2CaptureSource(path: "/dev/video0", configuration: mjpegConfiguration, kernel: fake,
                                           frameDecoder: JPEGLumaDecoder(), logger: recorder.logger)
        let collections = Collections()
        let session = CaptureSession(input: EveryFrameSource(camera), videoDataOutput: inFlight,
                                     metadataOutput: MetadataOutput(settings: .init(engine: .zbar), scanningThreads: 2), logger: Logger(label: "test"))
        let stats = try await session.run(synchronizer: DataOutputSynchronizer { collections.append($0) }, frameLimit: script.count)
        let out = collections.all
        #expect(out.map(\.sequenceNumber) == Array(0..<UInt64(script.count)))
        #expect(out.map(\.video.droppedReason) == [nil, .undecodable, nil, .undecodable, nil, .undecodable, nil, .undecodable, nil])
        for c in out where !c.video.wasDropped {
            #expect(c.metadata?.metadataObjects.map(\.text) == ["AFTER A BAD FRAME"], "frame \(c.sequenceNumber)")
        }
        #expect(stats.dropped[.undecodable] == 4 && stats.scanned == 5)
        // Three causes (truncated twice, empty, garbage), each logged once.
        let causes = recorder.all.filter { $0.message.hasPrefix("camera frame undecodable") }.compactMap { $0.metadata["cause"] }
        #expect(causes.count == 3, "\(causes)")
        #expect(causes.contains("empty frame (no JPEG data)") && causes.contains { $0.contains("Premature end of JPEG file") })
        #expect(camera.reopens == 0)
    }

    @Test func aStreamOfNothingButBadFramesIsReopenedLikeAStalledCamera() throws {
        let fake = FakeV4L2Kernel(driver: .mjpegOnlyCamera(frames: { _ in [0xFF, 0xD8, 0xFF] }), afterScript: .garbage)
        let recorder = LogRecorder()
        var configuration = mjpegConfiguration
        configuration.stallTimeoutFrameIntervals = 3  // 100 ms at the camera's 30 fps
        let camera = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake,
                                           frameDecoder: JPEGLumaDecoder(), logger: recorder.logger)
        try camera.start()
        defer { camera.stop() }
        var plane = [UInt8](repeating: 0, count: 320 * 240)
        var undecodable = 0
        // The scanning thread's part, played here: each frame decoded through the decoder it carries.
        let reopened = try waitUntil(every: .milliseconds(1)) {
            switch try camera.next() {
            case .frame(let frame)?:
                let result = frame.buffer.withUnsafeBytes { bytes in
                    plane.withUnsafeMutableBytes { frame.decoder!.decodeLuma(bytes, width: frame.width, height: frame.height, into: $0) }
                }
                if case .undecodable = result { undecodable += 1 }
            case .dropped(_, _, let reason, _)?:
                if reason == .undecodable { undecodable += 1 }
            case nil:
                break
            }
            return camera.reopens >= 1
        }
        #expect(reopened && undecodable > 0)
        #expect(recorder.all.contains { $0.message.hasPrefix("camera stalled: frames arrive but none decodable") })
    }

    @Test func withoutADecoderAnMJPEGOnlyCameraIsReadThroughLibv4l2sConversion() throws {
        let fake = FakeV4L2Kernel(driver: .mjpegOnlyCamera())
        let camera = try V4L2CaptureSource(path: "/dev/video0", configuration: mjpegConfiguration, kernel: fake, logger: LogRecorder().logger)
        try camera.start()
        defer { camera.stop() }
        #expect(camera.currentFormat?.fourcc == .yu12 && camera.currentFormat?.isEmulated == true)
        let frame = try #require(try camera.next()?.frame)
        #expect(frame.format == .yuv420 && frame.decoder == nil)
    }

    @Test func libv4l2ConversionFailuresAreUndecodableDropsAndStreamingGoesOn() throws {
        let fake = FakeV4L2Kernel(driver: .mjpegOnlyCamera())
        let recorder = LogRecorder()
        let camera = try V4L2CaptureSource(path: "/dev/video0", configuration: mjpegConfiguration, kernel: fake, logger: recorder.logger)
        try camera.start()
        defer { camera.stop() }
        #expect(try camera.next()?.frame?.sequenceNumber == 0)
        fake.inject(.ioError, into: .dequeueBuffer)  // libv4l2 after failing to convert frames in a row
        let events = try readEvents(camera, count: 2)
        guard case .dropped(let seq, _, let reason, let detail) = events.first else { Issue.record("\(events)"); return }
        #expect(seq == 1 && reason == .undecodable && detail.contains("libv4l2 could not convert"))
        #expect(events.last?.frame != nil && camera.reopens == 0)
        #expect(recorder.all.contains { $0.message.hasPrefix("camera frame undecodable") })
    }
}
