import Dispatch
import SystemCalls
import SystemPackage
import TestSupport
import Testing

@Suite(.offThePool) struct IOErrorTests {
    @Test func descriptionIsTheMessageThenTheCallAndItsErrno() {
        let error = IOError(call: "open", message: "cannot open '/x'; check the path", errno: .noSuchFileOrDirectory)
        #expect(error.code == .notFound && error.cause == .noSuchFileOrDirectory)
        #expect(error.description == "cannot open '/x'; check the path (open: No such file or directory, ENOENT)")
        let noErrno = IOError(code: .malformedInput, call: "read", message: "frame 3 truncated")
        #expect(noErrno.cause == nil && noErrno.description == "frame 3 truncated (read)")
    }

    @Test func errnosMapToTheCodesCallersBranchOn() {
        let expected: [(Errno, IOError.Code)] = [
            (.noSuchFileOrDirectory, .notFound), (.permissionDenied, .permissionDenied), (.notPermitted, .permissionDenied),
            (.resourceBusy, .busy), (.operationNotSupportedByDevice, .disconnected), (.noSuchAddressOrDevice, .disconnected),
            (.invalidArgument, .invalidArgument), (.isDirectory, .invalidArgument), (.inappropriateIOCTLForDevice, .notSupported),
            (.noMemory, .resourceExhausted), (.tooManyOpenFiles, .resourceExhausted), (.brokenPipe, .closed),
            (.badFileDescriptor, .closed), (.ioError, .io), (.timedOut, .io),
        ]
        for (errno, code) in expected {
            #expect(IOError.Code(errno) == code, "\(errno.symbol)")
        }
    }

    @Test func errnoSymbolsAreNamedOrNumbered() {
        #expect(Errno.resourceBusy.symbol == "EBUSY" && Errno.brokenPipe.symbol == "EPIPE")
        #expect(Errno(rawValue: 4095).symbol == "errno 4095")
    }

    @Test func swiftSystemErrorsBecomeTheirErrno() {
        #expect(Result(catchingErrno: { 7 }) == .success(7))
        #expect(Result<Int, Errno>(catchingErrno: { throw Errno.badFileDescriptor }) == .failure(.badFileDescriptor))
    }
}

@Suite(.offThePool) struct PollSetTests {
    @Test func reportsWhichDescriptorHasInputAndTimesOutWhenNoneHas() throws {
        let first = try FileDescriptor.pipe(), second = try FileDescriptor.pipe()
        // Each descriptor closed once: second's write end is closed by the test, so the defer
        // leaves it (a second close would close whatever a test running beside this one has been
        // given that number since: another test's eventfd, a pipe, a spool).
        var secondWriteEndOpen = true
        defer {
            for fd in [first.readEnd, first.writeEnd, second.readEnd] { try? fd.close() }
            if secondWriteEndOpen { try? second.writeEnd.close() }
        }
        let poll = PollSet([first.readEnd, second.readEnd])
        #expect(poll.wait(timeout: .milliseconds(1)) == .success(false))
        _ = try second.writeEnd.writeAll([1])
        #expect(poll.wait(timeout: hangTimeout) == .success(true))
        #expect(poll.events(at: 0).isEmpty && poll.events(at: 1) == .input)
        secondWriteEndOpen = false
        try second.writeEnd.close()
        var byte: UInt8 = 0
        _ = try withUnsafeMutableBytes(of: &byte) { try second.readEnd.read(into: $0) }
        // The writer is gone: the read end reports a hang-up, which a reader takes as the end.
        #expect(poll.wait() == .success(true))
        #expect(poll.events(at: 1).contains(.hangUp))
    }

    @Test func watchedEntriesWaitForOutputAndAnAbsentOneIsSkipped() throws {
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close(); try? pipe.writeEnd.close() }
        let poll = PollSet(count: 2)
        // An empty pipe's write end has room: output is ready at once; the read end is left out.
        poll.watch(pipe.writeEnd, for: [.input, .output], at: 0)
        poll.watch(nil, for: .input, at: 1)
        _ = try pipe.writeEnd.writeAll([1])
        #expect(poll.wait(timeout: hangTimeout) == .success(true))
        #expect(poll.events(at: 0) == .output && poll.events(at: 1).isEmpty)
        // Input only on the write end: nothing to report.
        poll.watch(pipe.writeEnd, for: .input, at: 0)
        #expect(poll.wait(timeout: .milliseconds(1)) == .success(false))
    }

    @Test func pollTimeoutsRoundUpToWholeMilliseconds() {
        #expect(Duration.zero.pollMilliseconds == 0 && Duration.milliseconds(-5).pollMilliseconds == 0)
        #expect(Duration.microseconds(1).pollMilliseconds == 1 && Duration.seconds(2).pollMilliseconds == 2000)
    }
}

@Suite(.offThePool) struct LockedValueTests {
    private struct Refused: Error, Equatable { let value: Int }

    @Test func incrementsFromFourThreadsAtOnceAllCount() {
        let counter = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 200_000)
    }

    @Test func aThrowingBodyKeepsItsChangesReleasesTheLockAndKeepsTheErrorType() {
        let state = LockedValue([1, 2])
        #expect(throws: Refused(value: 3)) {
            try state.withLock { (values: inout [Int]) throws(Refused) in
                values.append(3)
                throw Refused(value: values.count)
            }
        }
        // The lock was released: taking it again returns (a held lock would never return).
        #expect(state.withLock { $0 } == [1, 2, 3])
    }
}

@Suite struct NegativeErrnoTests {
    @Test func aNegativeReturnIsItsErrnoAndEINTRIsCalledAgain() {
        var calls = 0
        let retried = valueOrNegativeErrno {
            calls += 1
            return calls < 3 ? -Errno.interrupted.rawValue : 7
        }
        #expect(calls == 3 && (try? retried.get()) == 7)
        #expect(valueOrNegativeErrno { -Errno.resourceTemporarilyUnavailable.rawValue } == .failure(.resourceTemporarilyUnavailable))
        #expect(valueOrNegativeErrno { -Errno.operationNotSupportedByDevice.rawValue } == .failure(.operationNotSupportedByDevice))
        #expect(valueOrNegativeErrno { 0 } == .success(0))
    }
}

@Suite(.offThePool) struct PipeSizeTests {
    @Test("the system's pipe maximum is read from /proc/sys/fs/pipe-max-size, and a pipe may be made that large")
    func thePipeMaximumIsOneAPipeMayHave() throws {
        let maximum = try #require(system_pipeMaximumSize())
        #expect(maximum >= 4096 && maximum & (maximum - 1) == 0, "a power of two no smaller than a page: \(maximum)")
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close(); try? pipe.writeEnd.close() }
        #expect(system_setPipeSize(pipe.readEnd, bytes: maximum) == .success(maximum))
        #expect(system_setPipeSize(pipe.readEnd, bytes: 4096) == .success(4096))
        #expect(system_setPipeSize(FileDescriptor(rawValue: -1), bytes: 4096) == .failure(.badFileDescriptor))
    }
}
