import Media
import SystemCalls
import SystemPackage
import Testing
import TestSupport
import V4L2

@Suite(.offThePool) struct CaptureSourceFrameTests {
    @Test func framesWrapTheMappedBufferAndCarryKernelSequenceAndTimestamp() throws {
        let fake = FakeV4L2Kernel()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(source.uri == "v4l2:/dev/video0" && source.isLive)
        for expected in 0..<3 {
            let frame = try #require(try source.next()?.frame)
            let delivered = try #require(fake.delivered.last)
            #expect(frame.sequenceNumber == UInt64(expected) && delivered.sequence == UInt32(expected))
            #expect(frame.presentationTime == delivered.timestamp)
            // No copy: the frame's bytes are the mapping the driver filled.
            #expect(frame.buffer.withUnsafeBytes { $0.baseAddress.map { UInt(bitPattern: $0) } } == delivered.address)
            #expect(frame.buffer.withUnsafeBytes { $0.allSatisfy { $0 == UInt8(expected) } })
            #expect(frame.format == .grey && frame.width == 64 && frame.height == 48)
        }
        source.stop()
    }

    @Test func releasingAFrameRequeuesItsBuffer() throws {
        let fake = FakeV4L2Kernel()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(fake.queuedBuffers == 4)
        var held: VideoFrame? = try #require(try source.next()?.frame)
        #expect(fake.queuedBuffers == 3)
        #expect(held?.sequenceNumber == 0)
        held = nil
        #expect(fake.queuedBuffers == 4)
        source.stop()
        #expect(fake.violations.isEmpty)
    }

    @Test func errorFlaggedEmptyAndShortBuffersAreDroppedNeverFrames() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .errorFlagged, .empty, .short, .frame])
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        let events = try readEvents(source, count: 5)
        #expect(events.map(\.sequenceNumber) == [0, 1, 2, 3, 4])
        #expect(events.map { $0.frame != nil } == [true, false, false, false, true])
        #expect(events[1].dropDetail == "error flag")
        #expect(events[2].dropDetail == "empty")
        #expect(events[3].dropDetail?.hasPrefix("short") == true)
        for event in events[1...3] {
            guard case .dropped(_, let time, let reason, _) = event else { continue }
            #expect(reason == .discontinuity)
            #expect(time != nil)
        }
        // Dropped buffers went straight back to the driver; only the two frames held in `events` are lent out.
        #expect(fake.queuedBuffers == 2)
        source.stop()
    }

    @Test func sequenceGapsPassThroughAsTheKernelReportsThem() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .frame, .skip(3), .frame, .skip(1), .frame])
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        let events = try readEvents(source, count: 4)
        #expect(events.map(\.sequenceNumber) == [0, 1, 5, 7])
        source.stop()
    }

    @Test func aFrameReleasedAfterStopDoesNotTouchTheDeviceAndFreesEverything() throws {
        let fake = FakeV4L2Kernel()
        do {
            let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
            try source.start()
            var held: VideoFrame? = try #require(try source.next()?.frame)
            source.stop()
            source.stop()
            let afterStop = try source.next()
            #expect(afterStop == nil)
            // Still mapped while the frame is alive: its bytes must stay readable.
            #expect(fake.liveMappings == 4)
            #expect(held?.buffer.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } == true)
            held = nil
        }
        #expect(fake.liveMappings == 0)
        #expect(fake.liveDescriptors == 0)
        #expect(fake.descriptorsInProcess() == 0)
        #expect(fake.violations.isEmpty)
    }
}

@Suite(.offThePool) struct CaptureSourceFaultTests {
    @Test func hundredUnplugReplugCyclesResumeCaptureWithoutLeaks() throws {
        let cycles = 100
        let script = Array(repeating: [FakeV4L2Kernel.Step.frame, .unplug(missingOpens: 2)], count: cycles).flatMap { $0 }
        let fake = FakeV4L2Kernel(script: script)
        #expect(fake.descriptorsInProcess() == 0)
        let recorder = LogRecorder()
        do {
            let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: recorder.logger)
            try source.start()
            var frames = 0
            while frames <= cycles, let event = try source.next() {
                let frame = try #require(event.frame)
                // Each replugged device restarts its numbering; the source reports it as is.
                #expect(frame.sequenceNumber == 0)
                frames += 1
            }
            #expect(frames == cycles + 1)
            #expect(fake.unplugCount == cycles)
            #expect(source.openCount == cycles + 1)
            source.stop()
        }
        #expect(fake.openCount == cycles + 1)
        #expect(fake.openAttempts == cycles * 3 + 1)
        #expect(fake.maximumOpenDescriptors == 1)
        #expect(fake.liveDescriptors == 0)
        #expect(fake.descriptorsInProcess() == 0)
        #expect(fake.liveMappings == 0)
        #expect(fake.violations.isEmpty)
        let warnings = recorder.messages(at: .warning)
        #expect(warnings.filter { $0 == "camera lost; reopening it" }.count == cycles)
        #expect(warnings.filter { $0 == "cannot open the camera; retrying" }.count == cycles * 2)
        #expect(recorder.messages(at: .notice).filter { $0 == "camera reopened and streaming" }.count == cycles)
    }

    @Test func aStallReopensTheDeviceExactlyOnce() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .frame, .stall])
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.stallTimeoutFrameIntervals = 5      // 5 ms at the fake's 1000 fps
        configuration.gracePeriod = .milliseconds(20)
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake, logger: recorder.logger)
        try source.start()
        // Each frame is released before the next is read, as the scanners do: libv4l2 frees the
        // stalled device's buffers only once none is mapped, and the reopen needs them freed.
        var sequence: [UInt64] = []
        while sequence.count < 5, let event = try source.next() { sequence.append(event.sequenceNumber) }
        #expect(sequence == [0, 1, 0, 1, 2])
        #expect(fake.openCount == 2)
        #expect(source.openCount == 2)
        #expect(recorder.messages(at: .warning).filter { $0.hasPrefix("camera stalled") }.count == 1)
        source.stop()
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0 && fake.violations.isEmpty)
    }

    @Test func busyAtStreamOnGivesUpWithAClearErrorAfterBoundedRetries() throws {
        let fake = FakeV4L2Kernel()
        fake.inject(.resourceBusy, into: .streamOn, times: .max)
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: recorder.logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .busy && error.call == "VIDIOC_STREAMON" && error.cause == .resourceBusy)
        #expect(error.description.contains("/dev/video0: ") && error.description.contains("(VIDIOC_STREAMON: "))
        #expect(error.description.contains("another program is using it"))
        #expect(error.description.contains("gave up after 3 attempts"))
        #expect(fake.streamOnAttempts == 3)          // 1 + busyRetryLimit (2)
        #expect(recorder.messages(at: .warning).count == 2)
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0 && fake.descriptorsInProcess() == 0)
        #expect(fake.violations.isEmpty)
    }

    @Test func busyThatClearsWithinTheRetryLimitStreams() throws {
        let fake = FakeV4L2Kernel()
        fake.inject(.resourceBusy, into: .streamOn, times: 2)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(try source.next()?.frame != nil)
        #expect(fake.streamOnCount == 1 && fake.openCount == 3)
        source.stop()
    }

    /// vivid's `inject_vidioc_{streamon,reqbufs,qbuf}_error` make one call fail with EINVAL (or EIO).
    @Test(arguments: [
        (FakeV4L2Kernel.Call.streamOn, Errno.invalidArgument), (.requestBuffers, .invalidArgument),
        (.queueBuffer, .invalidArgument), (.streamOn, .ioError),
    ])
    func aStreamingSetupFailureAtTheFirstOpenIsRetried(call: FakeV4L2Kernel.Call, errno: Errno) throws {
        let fake = FakeV4L2Kernel()
        fake.inject(errno, into: call, times: 1)
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: recorder.logger)
        try source.start()
        #expect(try source.next()?.frame != nil)
        #expect(fake.streamOnCount == 1 && fake.openCount == 2 && source.openCount == 1)
        let warnings = recorder.messages(at: .warning)
        #expect(warnings.count == 1 && warnings.first?.hasPrefix("cannot open the camera; retrying") == true)
        source.stop()
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0 && fake.violations.isEmpty)
    }

    @Test func aStreamOnRefusedEveryTimeGivesUpWithTheCallNamed() throws {
        let fake = FakeV4L2Kernel()
        fake.inject(.invalidArgument, into: .streamOn, times: .max)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .refused && error.call == "VIDIOC_STREAMON")
        #expect(error.description.contains("gave up after 3 attempts"))
        #expect(fake.streamOnAttempts == 3)
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0 && fake.violations.isEmpty)
    }

    @Test func aFormatTheDriverRefusesIsNotRetried() throws {
        let fake = FakeV4L2Kernel()
        fake.inject(.invalidArgument, into: .setFormat, times: .max)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.call == "VIDIOC_S_FMT")
        #expect(fake.openAttempts == 1)
    }

    @Test func permissionDeniedAtOpenNamesTheFix() throws {
        let fake = FakeV4L2Kernel()
        fake.inject(.permissionDenied, into: .open, times: .max)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .permissionDenied)
        #expect(error.description.contains("/dev/video0: permission denied") && error.description.contains("(open: ")
                && error.description.contains("'video' group"))
        #expect(fake.openAttempts == 3)
    }

    @Test func aMissingDeviceAtStartIsAnErrorAtOnce() throws {
        let fake = FakeV4L2Kernel(path: "/dev/video0")
        let source = try V4L2CaptureSource(path: "/dev/video7", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notFound)
        #expect(error.description.contains("/dev/video7") && error.description.contains("syncscan devices"))
        #expect(fake.openAttempts == 1)
    }

    @Test func missingCapabilitiesAreNamed() throws {
        var capability = FakeV4L2Kernel.cameraCapability
        capability.deviceCapabilities = [.videoCapture, .readWrite]
        var driver = FakeV4L2Kernel.Driver.smallCamera()
        driver.capability = capability
        let fake = FakeV4L2Kernel(driver: driver)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notSupported)
        #expect(error.description.hasPrefix("/dev/video0: ") && error.description.hasSuffix("(VIDIOC_QUERYCAP)"))
        #expect(error.description.contains("lacks V4L2_CAP_STREAMING"))
        #expect(!error.description.contains("V4L2_CAP_VIDEO_CAPTURE"))
        #expect(fake.openAttempts == 1 && fake.liveDescriptors == 0)
    }

    @Test func deviceCapsDescribeTheNodeNotTheWholeDevice() throws {
        // The device as a whole captures video; this node is its metadata node.
        var driver = FakeV4L2Kernel.Driver.smallCamera()
        driver.capability.capabilities = [.videoCapture, .metadataCapture, .streaming, .deviceCaps]
        driver.capability.deviceCapabilities = [.metadataCapture, .streaming]
        let fake = FakeV4L2Kernel(driver: driver)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.description.contains("lacks V4L2_CAP_VIDEO_CAPTURE") && error.description.contains("metadata node"))
    }

    @Test func stopDuringReconnectBackoffReturnsPromptly() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .unplug(missingOpens: .max)])
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.reconnectBackoffInitial = .seconds(3600)
        configuration.reconnectBackoffMaximum = .seconds(3600)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        let reader = SourceThread { try readEvents(source, count: 10) }
        #expect(fake.wait { $0.backoffSleeps >= 1 })
        source.stop()
        do {
            // The one frame read before the fault; released at the end of this scope.
            let outcome = try #require(reader.wait(), "next() stayed blocked in the backoff sleep after stop()")
            #expect(try outcome.get().count == 1)
        }
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0)
    }

    /// While an unplugged camera is being waited for, `missingSince` says since when; a camera
    /// missing longer than `missingTimeout` ends `next()` with an error naming device.missing_timeout.
    @Test func aCameraMissingLongerThanTheMissingTimeoutEndsTheSource() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .unplug(missingOpens: .max)])
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.missingTimeout = .milliseconds(300)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(source.missingSince == nil)
        let reader = SourceThread { try readEvents(source, count: 10) }
        #expect(fake.wait { $0.backoffSleeps >= 1 })
        let since = try #require(source.missingSince, "an unplugged camera is reported missing")
        let outcome = try #require(reader.wait(), "next() kept waiting past the missing timeout")
        // Not before the timeout; how soon after it depends on the machine (a stopped process
        // resumes late), so no upper bound but the hang guard of `wait()`.
        #expect(ContinuousClock.now - since >= .milliseconds(300))
        #expect(throws: IOError.self) { try outcome.get() }
        if case .failure(let error) = outcome { #expect("\(error)".contains("device.missing_timeout")) }
        source.stop()
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0)
    }

    /// Stopping frees the driver's buffers: they are unmapped before VIDIOC_REQBUFS 0, which
    /// libv4l2 refuses while any is mapped; with a frame still lent out, when it is released.
    @Test func stopUnmapsBeforeFreeingTheBuffers() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .frame])
        do {
            let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
            try source.start()
            #expect(try readEvents(source, count: 1).count == 1)
            source.stop()
            #expect(fake.liveMappings == 0)
        }
        do {
            let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
            try source.start()
            let lent = try source.next()                // a frame still held while stopping
            source.stop()
            #expect(fake.liveMappings > 0)
            _ = lent
        }
        #expect(fake.liveMappings == 0 && fake.liveDescriptors == 0)
        #expect(fake.refusedBufferFrees == 0, "VIDIOC_REQBUFS 0 issued while buffers were mapped")
        #expect(fake.violations.isEmpty)
    }

    /// A replugged camera is no longer missing.
    @Test func aReplugClearsMissingSince() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .unplug(missingOpens: 3), .frame])
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(try readEvents(source, count: 2).count == 2)
        #expect(source.missingSince == nil)
        source.stop()
    }

    @Test func stopDuringPollReturnsPromptly() throws {
        let fake = FakeV4L2Kernel(script: [.frame], afterScript: .stall)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        let reader = SourceThread { try readEvents(source, count: 10) }
        #expect(fake.wait { $0.delivered.count == 1 })
        source.stop()
        do {
            // The one frame read before the fault; released at the end of this scope.
            let outcome = try #require(reader.wait(), "next() stayed blocked in poll after stop()")
            #expect(try outcome.get().count == 1)
        }
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0)
    }

    @Test func aFrameFromBeforeAReopenIsNotRequeuedOnTheNewDevice() throws {
        let fake = FakeV4L2Kernel(script: [.frame, .unplug(missingOpens: 0)])
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        var old: VideoFrame? = try #require(try source.next()?.frame)
        let new = try #require(try source.next()?.frame)
        #expect(fake.openCount == 2 && new.sequenceNumber == 0)
        // The old device's buffers stay mapped while its frame lives; then they go.
        #expect(fake.liveMappings == 8)
        let queuedBefore = fake.queuedBuffers
        old = nil
        #expect(fake.queuedBuffers == queuedBefore)
        #expect(fake.liveMappings == 4 && fake.liveDescriptors == 1)
        source.stop()
        #expect(fake.violations.isEmpty)
        _ = old
    }
}
