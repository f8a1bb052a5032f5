import Outbox
import SystemCalls

/// What `MQTTResultsHandler`'s `handle`, `itemRemoved` and accessors share with its thread,
/// under one lock whose condition wakes a `handle` waiting for room, `finish` and the thread's
/// backoff wait: the outbox's intake and counters, the broker connection's state, and the trigger input's.
struct MQTTHandlerShared {
    var intake = OutboxIntake()
    var overflow: OverflowPolicy
    var connected = false
    var online = false
    /// The broker granted the `<prefix>/trigger` subscription on this connection (`mqtt.trigger`).
    var triggerSubscribed = false
    /// Messages on `<prefix>/trigger` that were no command, empty ones too (`MQTTTriggerInput`).
    var triggersRejected = 0

    init(overflow: OverflowPolicy) { self.overflow = overflow }

    /// With `.wait` while connected, the memory queue (codes and every other message) and the
    /// intake hold `bound` messages: `handle` and `itemRemoved` wait for room.
    func isFull(bound: Int) -> Bool {
        overflow == .wait && connected && !intake.closed && intake.memoryMessages + intake.waiting.count >= bound
    }
}
