import Foundation
import TestSupport
import Testing

/// 40 frames: a QR code alone, then with an EAN-13 beside it, so two symbologies are counted and
/// duplicate suppression makes codes emitted fewer than codes found.
private func sample() throws -> [UInt8] {
    let qr = try GreyFrame.withQRCode("metrics sample", width: 560, height: 200).frame, both = try GreyFrame.withQRCodeAndEAN13("metrics sample")
    return Y4MWriter.bytes((0..<40).map { $0 < 20 ? qr : both })
}

/// The summary line's counts by name (`frames`, `lateData`, `codes_found`, …).
func summaryCounts(_ stderr: String) throws -> [String: Double] {
    let line = try #require(stderr.split(separator: "\n").first { $0.hasPrefix("syncscan: summary: ") }, "no summary line in:\n\(stderr)")
    var counts: [String: Double] = [:]
    for word in line.split(whereSeparator: { " ()".contains($0) }) {
        let parts = word.split(separator: "=")
        if parts.count == 2, let n = Double(parts[1]) { counts[String(parts[0])] = n }
    }
    return counts
}

/// The metrics file's counters against the summary line's, for one source.
private func expectFileMatchesSummary(_ text: PrometheusText, _ summary: [String: Double], source: String) {
    #expect(text.samples.allSatisfy { $0.labels["source"] == source }, "source labels: \(Set(text.samples.compactMap { $0.labels["source"] }))")
    for outcome in ["scanned", "lateData", "outOfBuffers", "discontinuity", "undecodable"] {
        #expect(text.value("syncscan_frames_total", ["outcome": outcome]) == summary[outcome], "\(outcome)")
    }
    #expect(text.sum("syncscan_frames_total") == summary["frames"])
    #expect(text.sum("syncscan_codes_total") == summary["codes_found"])
    #expect(text.value("syncscan_codes_emitted_total") == summary["codes_emitted"])
    #expect(text.value("syncscan_output_lines_dropped_total") == summary["output_lines_dropped"])
    #expect(text.value("syncscan_scan_duration_seconds_count") == summary["scanned"], "one scan duration per scanned frame")
    #expect(text.value("syncscan_device_reopens_total") == 0)
    #expect(text.value("syncscan_up") == 0, "written at exit: no longer streaming")
}

@Suite(.serialized, .offThePool) struct MetricsFileTests {
    /// `run --metrics-file F` on a file: F parses, and its counters equal the summary line's.
    @Test func theFileAtExitEqualsTheSummaryLine() throws {
        let video = try TemporaryFile(contents: try sample(), suffix: ".y4m")
        let metrics = try TemporaryFile(contents: [], suffix: ".prom")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--symbologies", "qrcode,ean13", "--metrics-file", metrics.path])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try summaryCounts(run.stderr)
        let text = try PrometheusText(path: metrics.path)
        expectFileMatchesSummary(text, summary, source: "y4m:\(video.path)")
        #expect(text.value("syncscan_codes_total", ["symbology": "qrcode"]) == 40)
        #expect(text.value("syncscan_codes_total", ["symbology": "ean13"]) == 20)
        #expect(summary["codes_emitted"].map { $0 > 0 && $0 < 60 } == true, "duplicates suppressed: \(summary)")
        #expect(run.codes.count == Int(summary["codes_emitted"] ?? -1))
    }

    /// A live pipe (frames may be dropped as late): written every stats interval with
    /// `syncscan_up 1` while streaming, then at exit equal to the summary line. The pipe stays
    /// open until a copy of the file is taken while it says so and has counted a scanned frame
    /// (at most `hangTimeout`, however slow the machine or the build).
    @Test func aLivePipeIsWrittenEveryIntervalAndAtExit() throws {
        let video = try TemporaryFile(contents: try sample(), suffix: ".y4m")
        let metrics = try TemporaryFile(contents: [], suffix: ".prom"), during = try TemporaryFile(contents: [], suffix: ".prom")
        try FileManager.default.removeItem(atPath: metrics.path)
        let run = try SyncscanProcess.shell("""
            end=$(( $(date +%s) + \(Int(hangTimeout.seconds)) ))
            (cat '\(video.path)'; while [ ! -s '\(during.path)' ] && [ $(date +%s) -lt $end ]; do sleep 0.1; done) \
              | SYNCSCAN_STATS_INTERVAL_SECONDS=0.5 "$SYNCSCAN" run --source y4m:- --symbologies qrcode,ean13 \
                --metrics-file '\(metrics.path)' &
            while [ $(date +%s) -lt $end ]; do
              if grep -Eqs '^syncscan_up.* 1(\\.0)?$' '\(metrics.path)' && grep -Eqs 'outcome="scanned".*\\} [1-9]' '\(metrics.path)'; then
                cp '\(metrics.path)' '\(during.path)'; break
              fi
              sleep 0.1
            done
            wait $!
            """)
        #expect(run.status == 0, "\(run.stderr)")
        let mid = try PrometheusText(path: during.path)
        #expect(mid.value("syncscan_up") == 1, "streaming while the pipe is open")
        #expect(mid.value("syncscan_frames_total", ["outcome": "scanned"]).map { $0 > 0 } == true)
        expectFileMatchesSummary(try PrometheusText(path: metrics.path), try summaryCounts(run.stderr), source: "y4m:-")
    }

    /// A metrics file that cannot be written (its directory is missing) is logged once, naming
    /// the path; scanning goes on to the end and exits 0 with every code printed.
    @Test func anUnwritableMetricsFileNeverStopsScanning() throws {
        let video = try TemporaryFile(contents: try sample(), suffix: ".y4m")
        let path = "/nonexistent-syncscan-dir/syncscan.prom"
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--symbologies", "qrcode,ean13", "--metrics-file", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").filter { $0.contains(path) && $0.contains("does not exist") }.count == 1, "\(run.stderr)")
        #expect(run.codes.count == Int(try summaryCounts(run.stderr)["codes_emitted"] ?? -1) && !run.codes.isEmpty)
    }

    /// `metrics.textfile` must name a `*.prom` file (node_exporter reads nothing else).
    @Test func aTextfileNotEndingInPromIsRefused() throws {
        let file = try TemporaryFile(contents: Array("source: /dev/video0\nmetrics:\n  textfile: /var/lib/node-exporter/syncscan.txt\n".utf8), suffix: ".yaml")
        let check = try SyncscanProcess.run(["check-config", file.path])
        #expect(check.status == 2)
        #expect(check.stderr.contains(file.path + ":3: metrics.textfile: \"/var/lib/node-exporter/syncscan.txt\" does not end in .prom"), "\(check.stderr)")
    }
}
