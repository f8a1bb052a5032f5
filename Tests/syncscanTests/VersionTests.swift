import Foundation
import Testing

@Suite(.offThePool) struct VersionTests {
    @Test("--version names syncscan and every C library with its version and origin; zxing-cpp is 3.1.1")
    func versionNamesEveryLibrary() throws {
        let run = try SyncscanProcess.run(["--version"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == "syncscan 0.1.0")
        #expect(lines.contains("zxing-cpp 3.1.1 (ZXing_Version)"), "\(lines)")
        // Each library line: NAME VERSION (ORIGIN), the version dotted numbers, never "unknown".
        let pattern = /^(\S+) (\d+(?:\.\d+)+) \((.+)\)$/
        var seen: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let match = line.wholeMatch(of: pattern) else {
                Issue.record("not NAME VERSION (ORIGIN): \(line)")
                continue
            }
            seen[String(match.1)] = String(match.3)
        }
        #expect(seen == [
            "zbar": "zbar_version",
            "zxing-cpp": "ZXing_Version",
            "libv4l2": "pkg-config at build time; libv4l2 has no version call",
            "TurboJPEG": "pkg-config at build time; TurboJPEG has no version call",
            "libmosquitto": "mosquitto_lib_version",
            "GStreamer": "gst_version_string",
            "libcurl": "curl_version",
            "libmodbus": "libmodbus_version_major",
        ])
    }
}
