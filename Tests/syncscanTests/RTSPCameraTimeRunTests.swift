import Foundation
import SystemCalls
import TestSupport
import Testing

/// `rtsp.camera_time`: `syncscan run --source rtsp://…` against GStreamer's own RTSP server, whose
/// rtpbin sends RTCP sender reports stamped with this machine's clock (the server shares it).
@Suite(.offThePool) struct RTSPCameraTimeRunTests {
    /// Seconds since 1970 of an RFC 3339 time with milliseconds (`time`, `frame.camera_time`).
    static func seconds(_ text: Any?) -> Double? {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return (text as? String).flatMap(format.date)?.timeIntervalSince1970
    }

    /// The code lines so far, in stdout order: (pts, camera_time or nil, time).
    static func codeLines(_ daemon: RunningDaemon) -> [(pts: Double, camera: Double?, time: Double, hasField: Bool)] {
        daemon.records("code").compactMap { line in
            guard let frame = line["frame"] as? [String: Any], let pts = frame["pts"] as? Double,
                  let time = seconds(line["time"]) else { return nil }
            return (pts, seconds(frame["camera_time"]), time, frame["camera_time"] != nil)
        }
    }

    /// With the key on, every code line after the first sender report carries `frame.camera_time`:
    /// this machine's wall clock when the server sent the frame (within the run, at or before the
    /// line's `time`; its first frame between the test's start and the first line), moving with
    /// `pts` (each step the pts step, within 20 ms). With the key off, no line has the field, also
    /// well after the reports came.
    @Test func codeLinesCarryTheCamerasClockAfterTheFirstSenderReportAndNoneWithTheKeyOff() throws {
        let server = try RTSPTestServer(frames: try RTSPRunTests.frames())
        let startedAt = Date().timeIntervalSince1970
        let on = try RunningDaemon(["run", "--source", server.url(), "--engine", "zbar", "--duplicate-window", "0"],
                                   environment: ["SYNCSCAN_RTSP_CAMERA_TIME": "true"])
        defer { if on.process.isRunning { on.send(SIGKILL) } }
        // 40 stamped lines: 4 s of the 10 fps stream, past several keyframes (one a second) and reports.
        #expect(waitUntil { Self.codeLines(on).filter(\.hasField).count >= 40 || !on.process.isRunning }, "\(on.stderr)")
        on.send(SIGTERM)
        #expect(on.wait() == 0, "\(on.stderr)")
        let endedAt = Date().timeIntervalSince1970
        let lines = Self.codeLines(on)
        let first = try #require(lines.firstIndex { $0.hasField }, "no camera_time: \(on.stderr)")
        let stamped = Array(lines[first...])
        #expect(stamped.allSatisfy { $0.camera != nil }, "every line after the first report has a parsable camera_time")
        let times = stamped.compactMap(\.camera)
        #expect(times.allSatisfy { $0 >= startedAt && $0 <= endedAt }, "camera times \(times.first ?? 0)…\(times.last ?? 0), run \(startedAt)…\(endedAt)")
        // The camera saw each frame before its line was written (how long before is the daemon's
        // backlog: over 3 s for the first frames with the whole suite loading the machine).
        let delays = stamped.compactMap { line in line.camera.map { line.time - $0 } }
        #expect(delays.allSatisfy { $0 >= -0.002 }, "time − camera_time: \(delays)")
        // camera_time − pts, the camera's clock at the daemon's first frame: after the test began
        // and before the first code line was written (the server began its stream for this client).
        let origin = try #require(stamped.first.flatMap { line in line.camera.map { $0 - line.pts } })
        #expect(origin >= startedAt && origin <= lines[0].time + 0.002, "first frame at \(origin), test began \(startedAt), first line \(lines[0].time)")
        for (a, b) in zip(stamped, stamped.dropFirst()) {
            guard let ca = a.camera, let cb = b.camera else { continue }
            #expect(abs((cb - ca) - (b.pts - a.pts)) <= 0.02, "camera_time \(ca) → \(cb), pts \(a.pts) → \(b.pts)")
            #expect(b.pts <= a.pts || cb > ca, "camera_time increases with pts")
        }

        // The key off: as many lines as the stamped run had and 20 more, none with the field.
        let off = try RunningDaemon(["run", "--source", server.url(), "--engine", "zbar", "--duplicate-window", "0"])
        defer { if off.process.isRunning { off.send(SIGKILL) } }
        #expect(waitUntil { Self.codeLines(off).count >= first + 20 || !off.process.isRunning }, "\(off.stderr)")
        off.send(SIGTERM)
        #expect(off.wait() == 0, "\(off.stderr)")
        #expect(!off.records("code").isEmpty && off.records("code").allSatisfy { ($0["frame"] as? [String: Any])?["camera_time"] == nil })
    }
}
