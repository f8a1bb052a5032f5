import Daemon
import Foundation
import Logging
import TestSupport
import SystemCalls
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A bound AF_UNIX datagram socket standing in for systemd's notify socket.
final class NotifySocketListener {
    let fd: CInt
    /// The value to put in `$NOTIFY_SOCKET`.
    let notifySocket: String
    private let directory: URL?

    /// Binds a socket at a path in a fresh temporary directory.
    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-notify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let path = directory.appendingPathComponent("notify").path
        fd = try Self.bind(sunPath: Array(path.utf8) + [0])
        notifySocket = path
    }

    /// Binds an abstract-namespace socket (`@name`).
    init(abstractName name: String) throws {
        directory = nil
        fd = try Self.bind(sunPath: [0] + Array(name.utf8))
        notifySocket = "@" + name
    }

    private static func bind(sunPath: [UInt8]) throws -> CInt {
        let fd = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + sunPath.count
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(length)) }
        }
        guard result == 0 else {
            let error = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: error)!)
        }
        return fd
    }

    /// Every datagram queued on the socket, without waiting (a local datagram is queued by the
    /// time `sendto` returns).
    func receivedMessages() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT)) }
            guard count >= 0 else { break }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        return messages
    }

    deinit {
        close(fd)
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

let quietLogger = Logger(label: "syncscan.test.notifier") { _ in SwiftLogNoOpLogHandler() }

@Suite(.offThePool) struct SystemdNotifierTests {
    @Test func sendsEachStateAsTheExactSdNotifyMessage() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket], logger: quietLogger)
        #expect(notifier.isEnabled)
        #expect(notifier.address == .path(listener.notifySocket))

        #expect(notifier.ready())
        #expect(notifier.status("scanning /dev/video0\nat 30 fps"))
        #expect(notifier.watchdog())
        #expect(notifier.ready(status: "reloaded"))
        #expect(notifier.stopping())
        #expect(listener.receivedMessages() == [
            "READY=1",
            "STATUS=scanning /dev/video0 at 30 fps",
            "WATCHDOG=1",
            "READY=1\nSTATUS=reloaded",
            "STOPPING=1",
        ])
    }

    @Test func reloadingCarriesTheMonotonicClock() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket], logger: quietLogger)
        var before = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        #expect(notifier.reloading())
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &after)

        let messages = listener.receivedMessages()
        try #require(messages.count == 1)
        let lines = messages[0].split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "RELOADING=1")
        let usec = try #require(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst("MONOTONIC_USEC=".count)) : nil })
        let lower = UInt64(before.tv_sec) * 1_000_000 + UInt64(before.tv_nsec) / 1_000
        let upper = UInt64(after.tv_sec) * 1_000_000 + UInt64(after.tv_nsec) / 1_000
        #expect((lower...upper).contains(usec))
    }

    @Test func reachesAnAbstractSocket() throws {
        let name = "syncscan-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        let listener = try NotifySocketListener(abstractName: name)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name], logger: quietLogger)
        #expect(notifier.address == .abstract(name))
        #expect(notifier.ready())
        #expect(listener.receivedMessages() == ["READY=1"])
    }

    @Test func isCallableFromManyThreadsAtOnce() async throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket], logger: quietLogger)
        // 8 datagrams in all: Linux queues at most net.unix.max_dgram_qlen (default 10) unread
        // datagrams, and the notifier never waits for room.
        let threads = 4, pings = 2
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask { for _ in 0..<pings { notifier.watchdog() } }
            }
        }
        let messages = listener.receivedMessages()
        #expect(messages.count == threads * pings)
        #expect(Set(messages) == ["WATCHDOG=1"])
    }

    @Test func withoutNotifySocketEveryCallIsAQuietNoOp() {
        let notifier = SystemdNotifier(environment: [:], logger: quietLogger)
        #expect(!notifier.isEnabled)
        #expect(notifier.ready() == false)
        #expect(notifier.watchdog() == false)
        #expect(notifier.watchdogTimeout == nil)
    }

    @Test func missingSocketFileIsNotFatal() throws {
        let listener = try NotifySocketListener()
        let gone = listener.notifySocket + "-gone"
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": gone], logger: quietLogger)
        #expect(notifier.isEnabled)
        #expect(notifier.ready() == false)
        #expect(notifier.stopping() == false)
        #expect(listener.receivedMessages().isEmpty)
    }

    @Test func unusableSocketValuesDisableNotification() {
        for value in ["relative/notify", "vsock:2:1234", "@", "/" + String(repeating: "x", count: 120)] {
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": value], logger: quietLogger)
            #expect(notifier.address == nil, "\(value)")
        }
    }

    @Test func watchdogTimeoutComesFromWatchdogUsecForThisProcess() {
        let pid = getpid()
        let mine = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid)"], logger: quietLogger)
        #expect(mine.watchdogTimeout == .seconds(30))
        #expect(mine.watchdogPingInterval == .seconds(15))

        let noPid = SystemdNotifier(environment: ["WATCHDOG_USEC": "500000"], logger: quietLogger)
        #expect(noPid.watchdogTimeout == .milliseconds(500))

        let otherProcess = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid + 1)"], logger: quietLogger)
        #expect(otherProcess.watchdogTimeout == nil)

        for bad in ["0", "-5", "soon", ""] {
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": bad], logger: quietLogger).watchdogTimeout == nil, "\(bad)")
        }
    }
}

@Suite(.offThePool) struct SystemdServiceEventsTests {
    /// A missing camera keeps the watchdog fed (no frames flow then) and its STATUS= goes out;
    /// nothing is sent after STOPPING=1.
    @Test func aMissingSourcePingsTheWatchdogAndStatusIsSent() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "1000000"],
                                       logger: quietLogger)
        let events = SystemdServiceEvents(notifier: notifier)
        events.sourceMissing()
        events.status("waiting for v4l2:/dev/video0 (gone 3 s)")
        events.stopping()
        events.sourceMissing()
        events.status("late")
        #expect(listener.receivedMessages() == ["WATCHDOG=1", "STATUS=waiting for v4l2:/dev/video0 (gone 3 s)", "STOPPING=1"])
    }

    /// With WatchdogSec=1s: a ping at READY, then one per quarter second of delivered frames
    /// (frames 50 ms apart on the clock the events are given), so no two are more than half
    /// the watchdog interval apart while frames flow; none while they do not.
    @Test func pingsRideOnDeliveredFramesAtMostEveryQuarterOfTheTimeout() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "1000000"],
                                       logger: quietLogger)
        let start = ContinuousClock.now
        let clock = LockedValue(start)
        let events = SystemdServiceEvents(notifier: notifier, now: { clock.withLock { $0 } })
        var pings: [Duration] = [], others: [String] = []
        func received() {
            for message in listener.receivedMessages() {
                if message == "WATCHDOG=1" { pings.append(clock.withLock { $0 } - start) } else { others.append(message) }
            }
        }
        events.streaming()
        received()
        for frame in 1...60 {                                   // 3 s of frames
            clock.withLock { $0 = start + .milliseconds(50 * frame) }
            events.frameDelivered()
            received()
        }
        clock.withLock { $0 = start + .seconds(10) }             // then 7 s without a frame
        received()
        #expect(others == ["READY=1"])
        #expect(pings == [.zero] + stride(from: 250, through: 3000, by: 250).map { Duration.milliseconds($0) }, "\(pings)")
    }
}

@Suite(.offThePool) struct SystemdServiceEventsStuckScanTests {
    /// No WATCHDOG=1 while a scan is stuck, though frames are delivered; they resume after it.
    @Test func aStuckScanStopsTheWatchdogPings() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "1000000"],
                                       logger: quietLogger)
        let events = SystemdServiceEvents(notifier: notifier)
        #expect(events.restartsWhenStuck)
        events.scanStuck(true)
        events.frameDelivered()
        events.sourceMissing()
        #expect(listener.receivedMessages() == [])
        events.scanStuck(false)
        events.frameDelivered()
        #expect(listener.receivedMessages() == ["WATCHDOG=1"])
    }

    /// Without WATCHDOG_USEC nothing restarts the service when its pings stop.
    @Test func withoutAWatchdogNothingRestartsAStuckService() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket], logger: quietLogger)
        #expect(!SystemdServiceEvents(notifier: notifier).restartsWhenStuck)
        #expect(!NoServiceEvents().restartsWhenStuck)
    }
}
