import Capture
import Logging
import MQTT
import SystemCalls
import TestSupport
@testable import Results

/// An MQTT results handler against `broker`, started: the tests' common set-up (`configure` sets
/// what a test needs beyond the broker's URL).
func startedMQTTHandler(_ broker: MosquittoBroker, source: String = "y4m:-", logger: Logger = LogRecorder().logger,
                        overflow: OverflowPolicy = .wait, triggers: TriggerSwitch? = nil,
                        configure: (inout MQTTSettings) -> Void = { _ in }) throws -> MQTTResultsHandler {
    var settings = MQTTSettings(url: try MQTTBrokerURL(parsing: broker.url))
    configure(&settings)
    let handler = MQTTResultsHandler(settings: settings, source: source, hostname: "test", password: nil, softwareVersion: "0",
                                     logger: logger, overflow: overflow, triggers: triggers)
    handler.start()
    return handler
}
