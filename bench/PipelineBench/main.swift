// pipeline-bench: syncscan's whole pipeline on camera MJPEG frames at a camera's pace, for bench/pipeline.py.
//
//   pipeline-bench run FPS SECONDS THREADS [--presentation] FILE...
//
// --presentation: trigger.mode presentation (only frames that changed are scanned; the rest are
// counted idle, never decoded in full).
// A live source hands the JPEG files (cycled) as MJPEG frames, one every 1/FPS s, each carrying
// JPEGLumaDecoder as the V4L2 source's MJPEG frames do; the real CaptureSession decodes each on a
// scanning thread (THREADS of them) into its grey plane, MetadataOutput scans it with the daemon's
// defaults (engine zxing, effort auto, QR codes) and the DataOutputSynchronizer counts the ledger.
// A frame that finds every scanning thread busy is dropped as lateData (a live source's default).
// Prints frames, scanned, lateData, undecodable, codes, codes by pass, passes cut, the process's
// CPU (getrusage user + system over the run) per frame, and what tells why a frame was late: its
// threads' involuntary context switches, scans longer than a frame interval (wall), the late frames'
// numbers and the machine's load average before and after; then a line `first_lines JSON`: each
// text read, the milliseconds from the source's start to the delivery of the first frame it was in.
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Capture
import Decoders
import JPEG
import Logging
import Media
import Synchronization

let tool = BenchTool(name: "pipeline-bench")

/// User + system CPU seconds of the whole process so far, and its involuntary context switches
/// (threads preempted: other processes wanted the cores).
func usage() -> (cpu: Double, preempted: Int) {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let seconds = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return (seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_nivcsw)
}

/// The machine's 1-minute load average (/proc/loadavg): how many threads wanted the cores.
func loadAverage() -> String {
    guard let f = fopen("/proc/loadavg", "r") else { return "?" }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 64)
    guard fgets(&line, 64, f) != nil else { return "?" }
    return String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: " ").first.map(String.init) ?? "?"
}

/// Scans' wall times (the scanning threads' scanTimeObserver) and the late frames' numbers.
final class Observed: Sendable {
    private struct State { var scans = 0, slowScans = 0, longest = Duration.zero, late: [UInt64] = [] }
    private let state = Mutex(State())
    private let period: Duration
    init(period: Duration) { self.period = period }
    func scan(_ time: Duration) {
        state.withLock { s in
            s.scans += 1
            if time > period { s.slowScans += 1 }
            s.longest = max(s.longest, time)
        }
    }
    func late(_ sequenceNumber: UInt64) { state.withLock { $0.late.append(sequenceNumber) } }
    var summary: String {
        state.withLock { s in
            "slow_scans=\(s.slowScans) longest_scan_ms=\(s.longest.nanoseconds / 1_000_000) "
                + "late_seqs=\(s.late.isEmpty ? "-" : s.late.prefix(12).map(String.init).joined(separator: ","))"
        }
    }
}

/// A camera stand-in that sends its MJPEG frames at `fps`: `next()` blocks until the next frame is
/// due (on the session's source thread), then hands the JPEG as the V4L2 source hands a dequeued
/// MJPEG buffer (format `MJPG`, the compressed bytes, the decoder). A frame that comes due while
/// the previous ones are still being handed over is not delayed further: it is late, as a camera's.
final class PacedMJPEGSource: FrameSource, @unchecked Sendable {
    private let jpegs: [UnsafeRawBufferPointer]
    private let width: Int, height: Int
    private let period: Duration
    private let count: Int
    private let decoder = JPEGLumaDecoder()
    private var sent = 0
    private(set) var began: ContinuousClock.Instant?
    private let stopped = Atomic(false)

    init(files: [[UInt8]], width: Int, height: Int, fps: Int, frames: Int) {
        jpegs = files.map { file in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: file.count, alignment: 64)
            copy.copyBytes(from: file)
            return UnsafeRawBufferPointer(copy)
        }
        (self.width, self.height, period, count) = (width, height, .nanoseconds(1_000_000_000 / fps), frames)
    }

    deinit { for jpeg in jpegs { jpeg.deallocate() } }

    var uri: String { "bench:mjpeg" }
    var isLive: Bool { true }
    var report: SourceReport {
        SourceReport(kind: "bench", label: "paced MJPEG frames", mode: SourceMode(
            width: width, height: height, format: "MJPG", framesPerSecond: 1 / (Double(period.nanoseconds) / 1e9), origin: "negotiated"))
    }
    func start() throws { began = .now }
    func stop() { stopped.store(true, ordering: .relaxed) }

    func next() throws -> SourceEvent? {
        guard !stopped.load(ordering: .relaxed), sent < count, let began else { return nil }
        let due = began + period * sent
        sleep(until: due)
        defer { sent += 1 }
        let jpeg = jpegs[sent % jpegs.count]
        return .frame(VideoFrame(sequenceNumber: UInt64(sent), presentationTime: MediaTime(nanoseconds: Int64(sent) * period.nanoseconds),
                                 width: width, height: height, bytesPerLine: 0, format: .mjpeg,
                                 buffer: PixelBuffer(bytes: jpeg) {}, decoder: decoder))
    }
}

/// Blocks the calling thread (the session's source thread) until `instant`.
func sleep(until instant: ContinuousClock.Instant) {
    let wait = instant - .now
    guard wait > .zero else { return }
    var t = timespec(tv_sec: Int(wait.components.seconds), tv_nsec: Int(wait.components.attoseconds / 1_000_000_000))
    var left = timespec()
    while nanosleep(&t, &left) == -1 && errno == EINTR { t = left }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// The first frame's size, from its SOF marker.
func jpegSize(_ jpeg: [UInt8]) -> (width: Int, height: Int)? {
    var at = 2
    while at + 9 < jpeg.count {
        guard jpeg[at] == 0xFF else { return nil }
        let marker = jpeg[at + 1]
        let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
        if (0xC0...0xC3).contains(marker) {
            return (Int(jpeg[at + 7]) << 8 | Int(jpeg[at + 8]), Int(jpeg[at + 5]) << 8 | Int(jpeg[at + 6]))
        }
        at += 2 + length
    }
    return nil
}

let arguments = CommandLine.arguments
guard arguments.count >= 6, arguments[1] == "run", let fps = Int(arguments[2]), fps > 0, let seconds = Int(arguments[3]),
      let threads = Int(arguments[4]) else { tool.fail("usage: pipeline-bench run FPS SECONDS THREADS FILE...") }
let presentation = arguments[5] == "--presentation"
let paths = arguments[(presentation ? 6 : 5)...]
guard !paths.isEmpty else { tool.fail("usage: pipeline-bench run FPS SECONDS THREADS [--presentation] FILE...") }
let files = paths.map(tool.readFile)
guard let (width, height) = jpegSize(files[0]) else { tool.fail("\(paths.first!): no JPEG frame size") }
let source = PacedMJPEGSource(files: files, width: width, height: height, fps: fps, frames: fps * seconds)
// The daemon's defaults (SyncscanConfiguration): engine zxing, effort auto, QR codes.
let observed = Observed(period: .nanoseconds(1_000_000_000 / fps))
var settings = MetadataOutput.Settings(engine: .zxing)
if presentation { settings.trigger = TriggerSettings(mode: .presentation) }
let metadata = MetadataOutput(settings: settings, scanningThreads: threads,
                              scanTimeObserver: { observed.scan($0) })
var logger = Logger(label: "pipeline-bench")
logger.logLevel = .error
let session = CaptureSession(input: source, videoDataOutput: VideoDataOutput(), metadataOutput: metadata, logger: logger)
/// Per text read: milliseconds from the source's start to the delivery of its first frame.
let firstLines = Mutex([String: Double]())
let synchronizer = DataOutputSynchronizer { collection in
    if collection.video.droppedReason == .lateData { observed.late(collection.sequenceNumber) }
    guard let codes = collection.metadata?.metadataObjects, !codes.isEmpty, let began = source.began else { return }
    let now = Double((ContinuousClock.now - began).nanoseconds) / 1e6
    firstLines.withLock { seen in for code in codes { if let text = code.text, seen[text] == nil { seen[text] = now } } }
}
let loadBefore = loadAverage()
let before = usage()
// The session reads the source and scans on threads of its own; this only waits for the end.
do { _ = try await session.run(synchronizer: synchronizer) } catch { tool.fail("session: \(error)") }
let after = usage()
let cpu = after.cpu - before.cpu
let s = synchronizer.statistics
let byPass = s.codesByPass.map { "\($0.key.rawValue):\($0.value)" }.sorted().joined(separator: ",")
let cut = s.passesCut.map { "\($0.key.rawValue):\($0.value)" }.sorted().joined(separator: ",")
print("frames=\(s.frames) scanned=\(s.scanned) idle=\(s.dropped[.idle] ?? 0) lateData=\(s.dropped[.lateData] ?? 0) undecodable=\(s.dropped[.undecodable] ?? 0) "
      + "dropped=\(s.droppedTotal) codes=\(s.codes) by_pass=\(byPass.isEmpty ? "-" : byPass) cut=\(cut.isEmpty ? "-" : cut) "
      + "size=\(width)x\(height) cpu_ms_per_frame=\(cpu * 1000 / Double(max(1, s.frames))) "
      + "preempted=\(after.preempted - before.preempted) \(observed.summary) load=\(loadBefore),\(loadAverage())")
let seen = firstLines.withLock { $0 }.sorted { $0.key < $1.key }
print("first_lines {" + seen.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}")
