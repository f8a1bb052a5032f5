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
}
