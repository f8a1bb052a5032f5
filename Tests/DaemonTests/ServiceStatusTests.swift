import Capture
import Decoders
import Foundation
import Results
import Testing
@testable import Daemon

@Suite struct ServiceStatusTests {
    @Test func eachStatusHasItsLineAndItsState() {
        var statistics = CaptureStatistics()
        statistics.frames = 30
        statistics.codes = 4
        statistics.dropped = [.lateData: 2, .undecodable: 1]
        statistics.codesByPass = [.zxingFast: 4]
        let cases: [(ServiceStatus, line: String, state: String)] = [
            (.opening(source: "v4l2:/dev/video0"), "opening v4l2:/dev/video0", "opening"),
            (.waiting(source: "v4l2:/dev/video0", goneSeconds: 7), "waiting for v4l2:/dev/video0 (gone 7 s)", "waiting"),
            (.stuck(sequenceNumber: 3, seconds: 2, pass: nil), "scan stuck: frame 3 for 2 s", "stuck"),
            (.scanning(source: "y4m:-", statistics: statistics),
             "scanning y4m:-: frames=30 codes=4 dropped=3 undecodable=1 by_pass=zxing-fast:4 cut=0",
             "scanning"),
        ]
        for (status, line, state) in cases {
            #expect(status.line == line)
            #expect(status.state == state)
        }
    }

    /// A source named with quotes, a backslash and a control character is one JSON string in `/status`.
    @Test func aStatusTextIsQuotedAsCodeLinesQuoteTheirs() throws {
        let text = "waiting for y4m:/srv/\"odd\\name\u{1}.y4m"
        let quoted = JSONLineEncoder.quoted(text)
        let parsed = try JSONSerialization.jsonObject(with: Data(Array("[".utf8) + quoted + Array("]".utf8))) as? [String]
        #expect(parsed == [text])
    }
}
