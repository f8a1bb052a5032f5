// mjpeg-bench: syncscan's MJPEG→grey stage (JPEGLumaDecoder, the decoder the V4L2 source hands
// the scanning threads) timed on JPEG files, and the camera-like JPEGs it is timed on.
//
//   mjpeg-bench encode FRAMES.y4m OUTDIR [QUALITY]   grey Y4M frames → OUTDIR/NNNNN.jpg, 4:2:2 (2x1) like a UVC camera's
//   mjpeg-bench decode WIDTH HEIGHT REPEAT FILE...    each file decoded to grey REPEAT times; prints CPU ms per frame
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import JPEG
import Media

let tool = BenchTool(name: "mjpeg-bench")

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The frames of a `mono` Y4M file: its size and each frame's grey bytes.
func monoFrames(_ data: [UInt8]) -> (width: Int, height: Int, frames: [ArraySlice<UInt8>]) {
    guard let end = data.firstIndex(of: 0x0A) else { tool.fail("no Y4M header") }
    let header = String(decoding: data[..<end], as: UTF8.self).split(separator: " ")
    guard header.first == "YUV4MPEG2", header.contains("Cmono"),
          let w = header.first(where: { $0.hasPrefix("W") }).flatMap({ Int($0.dropFirst()) }),
          let h = header.first(where: { $0.hasPrefix("H") }).flatMap({ Int($0.dropFirst()) }) else { tool.fail("not a mono Y4M: \(header)") }
    var frames: [ArraySlice<UInt8>] = []
    var at = end + 1
    while at < data.count, let eol = data[at...].firstIndex(of: 0x0A), eol + 1 + w * h <= data.count {
        frames.append(data[(eol + 1)..<(eol + 1 + w * h)])
        at = eol + 1 + w * h
    }
    return (w, h, frames)
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "encode" where arguments.count >= 4:
    let (width, height, frames) = monoFrames(tool.readFile(arguments[2]))
    let quality = arguments.count > 4 ? Int(arguments[4]) ?? 88 : 88
    let encoder = try JPEGEncoder()
    for (index, grey) in frames.enumerated() {
        // YUYV with neutral chroma: TurboJPEG writes it 4:2:2 (luma 2x1), as UVC cameras send.
        var yuyv = [UInt8](repeating: 128, count: width * height * 2)
        for (i, y) in grey.enumerated() { yuyv[2 * i] = y }
        let jpeg = try yuyv.withUnsafeBytes {
            try encoder.encode($0, format: .yuyv, width: width, height: height, bytesPerLine: width * 2, quality: quality)
        }
        let path = arguments[3] + "/" + String(index + 100_000).dropFirst() + ".jpg"
        guard let f = fopen(path, "wb"), fwrite(jpeg, 1, jpeg.count, f) == jpeg.count, fclose(f) == 0 else { tool.fail("cannot write \(path)") }
    }
    print("frames=\(frames.count) size=\(width)x\(height)")
case "decode" where arguments.count >= 6:
    guard let width = Int(arguments[2]), let height = Int(arguments[3]), let repeats = Int(arguments[4]) else { tool.fail("decode WIDTH HEIGHT REPEAT FILE...") }
    let files = arguments[5...].map(tool.readFile)
    let decoder = JPEGLumaDecoder()
    let plane = UnsafeMutableRawBufferPointer.allocate(byteCount: width * height, alignment: 64)
    defer { plane.deallocate() }
    var frames = 0
    let start = cpuSeconds()
    for _ in 0..<repeats {
        for jpeg in files {
            let result = jpeg.withUnsafeBytes { decoder.decodeLuma($0, width: width, height: height, into: plane) }
            guard case .decoded = result else { tool.fail("\(result)") }
            frames += 1
        }
    }
    let elapsed = cpuSeconds() - start
    print("cpu_ms_per_frame=\(elapsed * 1000 / Double(frames)) frames=\(frames) luma_checksum=\(plane[width * height / 2])")
default:
    tool.fail("usage: mjpeg-bench encode FRAMES.y4m OUTDIR [QUALITY] | decode WIDTH HEIGHT REPEAT FILE...")
}
