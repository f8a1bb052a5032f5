import Foundation
import TestSupport
import Testing
@testable import Daemon

@Suite(.offThePool) struct SocketActivationTests {
    @Test func socketsCountOnlyForThisProcess() {
        #expect(SocketActivation(environment: ["LISTEN_PID": "\(getpid() + 1)", "LISTEN_FDS": "1"]).sockets.isEmpty)
        #expect(SocketActivation(environment: ["LISTEN_FDS": "1"]).liveViewSocket == nil)
        #expect(SocketActivation(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "0"]).liveViewSocket == nil)
    }

    @Test func theOnlySocketOrTheOneNamedAfterTheLiveViewUnitIsServed() {
        let one = SocketActivation(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1"])
        #expect(one.liveViewSocket?.rawValue == 3)
        let named = SocketActivation(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "2",
                                                   "LISTEN_FDNAMES": "other.socket:syncscan-http@video0.socket"])
        #expect(named.sockets.map(\.name) == ["other.socket", "syncscan-http@video0.socket"])
        #expect(named.liveViewSocket?.rawValue == 4)
        let unnamed = SocketActivation(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "2"])
        #expect(unnamed.liveViewSocket == nil, "two sockets and no names: none is taken for the live view")
    }
}
