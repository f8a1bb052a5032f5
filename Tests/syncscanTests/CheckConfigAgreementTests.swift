import Foundation
import TestSupport
import Testing

/// `check-config FILE` and `run --config FILE` go through one validation: a file one accepts the
/// other accepts, and a file one refuses the other refuses with the same problems (exit 2).
@Suite(.serialized, .offThePool) struct CheckConfigAgreementTests {
    /// A file body (`SOURCE` stands for a short Y4M file) and, for a bad file, what its problem says.
    static let cases: [(yaml: String, problem: String?)] = [
        ("source: SOURCE\n", nil),
        ("source: y4m:SOURCE\nsymbologies: [qrcode, code128]\ndevice:\n  buffers: 2\n  max_width: 1920\n", nil),
        ("source: SOURCE\ndevice:\n  width: 640\n  height: 480\n  fps: 30\n  fourcc: yuyv\n  buffers: 32\n", nil),
        ("source: foo\n", ":1: source: unsupported source \"foo\""),
        ("source: /dev/video0\ndevice:\n  buffers: 1\n", ":3: device.buffers: 1 is out of range: must be from 2 to 32"),
        ("source: SOURCE\ndevice:\n  buffers: 33\n", ":3: device.buffers: 33 is out of range"),
        ("source: SOURCE\ndevice:\n  fps: 0\n", ":3: device.fps: 0 is out of range: must be greater than 0"),
        ("source: SOURCE\ndevice:\n  fourcc: H264\n", ":3: device.fourcc: unknown pixel format \"H264\""),
        ("source: SOURCE\ndevice:\n  min_fps: 2000\n", ":3: device.min_fps: 2000 is out of range: must be at least 0 and at most 1000"),
        ("source: SOURCE\ndevice:\n  width: 640\n", ":3: device.width: device.width and device.height must be given together"),
        ("source: SOURCE\nsymbologies: [qrcode, qr]\n", ":2: symbologies[1]: unknown symbology \"qr\""),
        ("source: SOURCE\noutput:\n  queue_lines: 0\n", ":3: output.queue_lines: 0 is out of range"),
        ("source: SOURCE\nrtsp:\n  camera_time: true\n", nil),
        ("source: SOURCE\nrtsp:\n  latency_ms: 100\n  camera_time: maybe\n", ":4: rtsp.camera_time: expected true or false"),
        ("source: SOURCE\nsorce: /dev/video1\n", ":2: sorce: unknown key \"sorce\" (did you mean \"source\"?)"),
        ("source: SOURCE\nengine: hybrid\nsymbologies: [qrcode, aztec, datamatrix, ean13]\n", nil),
        ("source: SOURCE\nengine: zbar\nsymbologies: [aztec]\n",
         ":3: symbologies: the zbar engine does not read aztec; engine: zxing or engine: hybrid does, or remove aztec"),
        ("source: SOURCE\nengine: zxing\nsymbologies: [sqcode]\n",
         ":3: symbologies: the zxing engine does not read sqcode; engine: zbar or engine: hybrid does, or remove sqcode"),
        ("source: SOURCE\nscanning_threads: [1]\n", ":2: scanning_threads: expected auto or an integer from 1 to 64, found a list"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  preview_fps: 2.5\n  preview_width: 320\n  max_connections: 4\n  max_connections_per_address: 2\n", nil),
        ("source: SOURCE\nhttp:\n  listen: 0.0.0.0:8080\n",
         ":3: http.listen: 0.0.0.0:8080 is not a loopback address: listen on 127.0.0.1, or set http.allow_remote: true"),
        ("source: SOURCE\nhttp:\n  listen: 0.0.0.0:8080\n  allow_remote: true\n",
         ":3: http.listen: 0.0.0.0:8080 is not a loopback address and http.password_file is not set"),
        ("source: SOURCE\nhttp:\n  listen: localhost\n", ":3: http.listen: \"localhost\" is not ADDRESS:PORT"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  preview_fps: 0\n", ":4: http.preview_fps: 0 is out of range: must be greater than 0"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  preview_width: 8\n", ":4: http.preview_width: 8 is out of range: must be from 16 to 7680"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  max_connections: 0\n", ":4: http.max_connections: 0 is out of range"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  max_connections_per_address: 0\n",
         ":4: http.max_connections_per_address: 0 is out of range"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  allow_remote: maybe\n", ":4: http.allow_remote: expected true or false"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  allowed_hosts: [camera.example.com, \"proxy.example:8443\", \"[2001:db8::7]\"]\n", nil),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  allowed_hosts: [camera.example.com, \"https://camera.example.com\"]\n",
         ":4: http.allowed_hosts: \"https://camera.example.com\" is not a host name with an optional port: give NAME or NAME:PORT"),
        ("source: SOURCE\nhttp:\n  listen: 127.0.0.1:0\n  tls_cert_file: /etc/ssl/certs/x.pem\n",
         ":4: http.tls_cert_file: http.tls_cert_file is set but http.tls_key_file is not: HTTPS needs both"),
    ]

    @Test(arguments: cases.indices) func checkConfigAndRunAgree(index: Int) throws {
        let (yaml, problem) = Self.cases[index]
        let video = try TemporaryFile(contents: Y4MWriter.bytes([GreyFrame(width: 64, height: 48)]), suffix: ".y4m")
        let file = try TemporaryFile(contents: Array(yaml.replacingOccurrences(of: "SOURCE", with: video.path).utf8), suffix: ".yaml")
        let check = try SyncscanProcess.run(["check-config", file.path])
        let run = try SyncscanProcess.run(["run", "--config", file.path, "--max-frames", "1"])
        guard let problem else {
            #expect(check.status == 0, "check-config: \(check.stderr)")
            #expect(run.status == 0, "run: \(run.stderr)")
            return
        }
        #expect(check.status == 2 && run.status == 2, "check-config \(check.status), run \(run.status)")
        #expect(check.stderr.contains(file.path + problem), "check-config: \(check.stderr)")
        #expect(run.stderr == check.stderr, "run: \(run.stderr)\ncheck-config: \(check.stderr)")
    }
}

@Suite(.offThePool) struct ScanningThreadsTests {
    /// `auto` is the processors this process may run on (sched_getaffinity), so `taskset` narrows it.
    @Test func autoFollowsTheAffinityMask() throws {
        let file = try TemporaryFile(contents: Array("source: /dev/video0\n".utf8), suffix: ".yaml")
        let online = try SyncscanProcess.shell("nproc")
        let processors = Int(String(decoding: online.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let all = try SyncscanProcess.shell("\"$SYNCSCAN\" check-config '\(file.path)'")
        #expect(String(decoding: all.stdout, as: UTF8.self).contains("scanning threads \(min(8, processors))"), "\(all.stderr)")
        let one = try SyncscanProcess.shell("taskset -c 0 \"$SYNCSCAN\" check-config '\(file.path)'")
        #expect(String(decoding: one.stdout, as: UTF8.self).contains("scanning threads 1"), "\(one.stderr)")
        let fixed = try SyncscanProcess.shell("taskset -c 0 \"$SYNCSCAN\" run --config '\(file.path)' --scanning-threads 3 --source y4m:/nonexistent.y4m")
        #expect(fixed.stderr.contains("nonexistent"), "a number overrides auto and the run reaches the source: \(fixed.stderr)")
    }
}
