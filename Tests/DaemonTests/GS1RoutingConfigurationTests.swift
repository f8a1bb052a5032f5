import Capture
import ConfigurationKeys
import Daemon
import Decoders
import Media
import Results
import TestSupport
import Testing

@Suite(.offThePool) struct GS1RoutingConfigurationTests {
    @Test func topicByAIAndTheGS1FilterReachTheSettings() async throws {
        let file = try TemporaryConfigFile("""
        output:
          gs1_filter: ["01", "00"]
        mqtt:
          url: mqtt://127.0.0.1:1883
          topic_by_ai: "01"
        """)
        let c = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(c.mqtt?.topicByAI == "01")
        #expect(c.output.gs1Filter == ["01", "00"])
        let filter = try #require(c.output.codeFilter)
        #expect(filter.name == "gs1_filter=01,00")
        let frame = FrameInfo(sequenceNumber: 1, presentationTime: .zero, width: 8, height: 8, format: .grey)
        func code(_ text: String, _ identifier: String) -> MachineReadableCodeObject {
            MachineReadableCodeObject(symbology: .code128, data: Array(text.utf8), text: text, quality: 1, orientation: .up, corners: [],
                                      frame: frame, pass: .zbar, symbologyIdentifier: identifier)
        }
        #expect(filter.accepts(code("0109506000134352", "]C1")), "a GTIN")
        #expect(filter.accepts(code("00106141411234567897", "]C1")), "an SSCC")
        #expect(filter.accepts(code("https://id.gs1.org/01/09506000134352", "]Q1")), "a Digital Link's GTIN")
        #expect(!filter.accepts(code("10ABC", "]C1")), "GS1, but only a batch")
        #expect(!filter.accepts(code("0109506000134353", "]C1")), "a GTIN at fault: no valid element")
        #expect(!filter.accepts(code("0109506000134352", "]C0")), "not GS1")
        #expect(try await SyncscanConfiguration.load(file: nil, environment: [:]).output.codeFilter == nil, "no key: no filter")
    }

    @Test func anAIThatIsNotOneIsNamedWithItsLine() async throws {
        let file = try TemporaryConfigFile("""
        output:
          gs1_filter: ["01", "2399", "GTIN"]
        mqtt:
          url: mqtt://127.0.0.1:1883
          topic_by_ai: "019"
        """)
        let lines = await expectConfigurationError(file: file.path)
        #expect(lines == [
            "\(file.path):2: output.gs1_filter: not a GS1 Application Identifier: \"2399\", \"GTIN\" (AIs are 2 to 4 digits: 01, 00, 10, 3103, 8004)",
            "\(file.path):5: mqtt.topic_by_ai: \"019\" is not a GS1 Application Identifier (2 to 4 digits: 01 the GTIN, 00 the SSCC, 10 the batch)",
        ])
        let empty = try TemporaryConfigFile("output:\n  gs1_filter: []\n")
        #expect(await expectConfigurationError(file: empty.path)
            == ["\(empty.path):2: output.gs1_filter: an empty list would emit no code; list AIs (01, 00) or remove the key"])
    }
}
