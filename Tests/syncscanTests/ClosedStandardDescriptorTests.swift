import Foundation
import TestSupport
import Testing

/// stdin, stdout or stderr closed at start are opened on /dev/null, never reused by another open.
@Suite(.offThePool) struct ClosedStandardDescriptorTests {
    @Test func runWithStdoutClosedRefusesToStart() throws {
        let run = try SyncscanProcess.shell("\"$SYNCSCAN\" run --source y4m:- </dev/null >&-")
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("stdout was closed when syncscan started"), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("Invalid argument"), "stderr: \(run.stderr)")
    }

    @Test func checkConfigWithStdinAndStdoutClosedStillAnswers() throws {
        let file = try TemporaryFile(contents: Array("source: y4m:-\n".utf8), suffix: ".yaml")
        let run = try SyncscanProcess.shell("\"$SYNCSCAN\" check-config \(file.path) <&- >&-")
        #expect(run.status == 0, "stderr: \(run.stderr)")
    }
}
