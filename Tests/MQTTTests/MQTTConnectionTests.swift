import MQTT
import SystemPackage
import TestSupport
import Testing

@Suite(.offThePool) struct MQTTConnectionTests {
    @Test func refusedConnectionIsAnErrorNamingErrno() throws {
        // Port 1 on loopback: nothing listens, the kernel refuses (at connect or in the first loops).
        var failure: MQTTError?
        switch MQTTConnection.connect(MQTTConnection.Options(host: "127.0.0.1", port: 1)) {
        case .failure(let error): failure = error
        case .success(let connection):
            let deadline = ContinuousClock.now + hangTimeout
            while failure == nil && ContinuousClock.now < deadline {
                let (events, error) = connection.loop(timeout: .milliseconds(50))
                failure = error ?? events.compactMap { if case .disconnected(let e) = $0 { e } else { nil } }.first
            }
        }
        let error = try #require(failure)
        #expect(error.errno == 111, "\(error)")
        #expect(error.description.contains("listens on the host and port"))
    }

    @Test func anIdleLoopReturnsWhenTheOwnersDescriptorHasInput() throws {
        let broker = try MosquittoBroker()
        let connection = try MQTTConnection.connect(MQTTConnection.Options(host: "127.0.0.1", port: broker.port)).get()
        var connected = false
        let deadline = ContinuousClock.now + hangTimeout
        while !connected && ContinuousClock.now < deadline {
            let (events, failure) = connection.loop(timeout: .milliseconds(50))
            try #require(failure == nil, "\(failure!)")
            connected = events.contains(.connected)
        }
        try #require(connected)
        // Published and acknowledged through the same loop.
        let mid = try connection.publish(MQTTConnection.Message(topic: "syncscan/test", payload: Array("x".utf8), qos: 1)).get()
        var acknowledged = false
        while !acknowledged && ContinuousClock.now < deadline {
            acknowledged = connection.loop(timeout: .milliseconds(50)).events.contains(.published(mid: mid))
        }
        #expect(acknowledged)
        // Idle now (keepalive 30 s): only the owner's descriptor can end a wait as long as the
        // hang deadline early (half of it is far more than any stop of the process lasts).
        let wake = try FileDescriptor.pipe()
        defer { try? wake.readEnd.close(); try? wake.writeEnd.close() }
        _ = try wake.writeEnd.writeAll([1])
        let start = ContinuousClock.now
        let (events, failure) = connection.loop(timeout: hangTimeout, wake: wake.readEnd)
        #expect(ContinuousClock.now - start < hangTimeout / 2)
        #expect(events.isEmpty && failure == nil)
    }

    /// A subscription's SUBACK grants the QoS asked for; a message on its topic comes back as a
    /// `.message` with its topic and payload, a long payload cut to `payloadLimit` with its whole
    /// length, and a retained one marked so when a new subscription gets it.
    @Test func aSubscriptionsMessagesComeBackAsEventsWithTheirPayload() throws {
        let broker = try MosquittoBroker()
        let connection = try MQTTConnection.connect(MQTTConnection.Options(host: "127.0.0.1", port: broker.port)).get()
        let deadline = ContinuousClock.now + hangTimeout
        var events: [MQTTConnection.Event] = []
        func loop(until done: () -> Bool) throws {
            while !done() && ContinuousClock.now < deadline {
                let (new, failure) = connection.loop(timeout: .milliseconds(50))
                try #require(failure == nil, "\(failure!)")
                events += new
            }
        }
        try loop { events.contains(.connected) }
        let retained = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "t/kept", "-m", "old", "-r"])
        try #require(retained.status == 0, "\(retained.describe())")
        let mid = try connection.subscribe("t/#", qos: 1).get()
        try loop { events.contains(.subscribed(mid: mid, grantedQoS: [1])) }
        #expect(events.contains(.subscribed(mid: mid, grantedQoS: [1])), "\(events)")
        let long = String(repeating: "x", count: 1000)
        for (topic, payload) in [("t/a", "press"), ("t/b", long)] {
            let sent = try ExternalTool.run("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", topic, "-m", payload])
            try #require(sent.status == 0, "\(sent.describe())")
        }
        let messages = { events.compactMap { if case .message(let m) = $0 { m } else { nil } } }
        try loop { messages().count >= 3 }
        #expect(messages() == [
            MQTTConnection.Received(topic: "t/kept", payload: Array("old".utf8), retained: true),
            MQTTConnection.Received(topic: "t/a", payload: Array("press".utf8)),
            MQTTConnection.Received(topic: "t/b", payload: Array(long.utf8.prefix(MQTTConnection.Received.payloadLimit)), length: 1000),
        ])
    }
}
