import Media
import SystemCalls

/// What a live view's viewers read: the latest preview JPEG, the code lines, the outlines of what
/// recent frames held (`event: sightings`) and the status, each viewer at its own pace.
///
/// Publishing never waits for a viewer. Each events viewer has its own backlog of bytes, bounded
/// (`eventBacklogBytes`): a viewer that stops reading while lines keep coming is dropped (its
/// stream ends) and counted. A pictures viewer only ever takes the newest picture, so one that
/// reads slowly skips pictures. Readers wait on the hub's one lock's condition with a deadline.
public final class LiveViewHub: Sendable {
    struct Picture {
        var jpeg: [UInt8]
        var generation: Int
    }

    struct EventBacklog {
        var bytes: [UInt8] = []
        var dropped = false

        /// Appends `event`, or drops the viewer when that would put it more than `limit` bytes
        /// behind; whether it was dropped now.
        mutating func append(_ event: [UInt8], limit: Int) -> Bool {
            guard !dropped else { return false }
            guard bytes.count + event.count <= limit else {
                (dropped, bytes) = (true, [])
                return true
            }
            bytes += event
            return false
        }
    }

    struct State {
        var picture: Picture?
        var pictureViewers = 0
        /// Until when a `/snapshot.jpg` request keeps pictures coming.
        var snapshotDemandUntil: ContinuousClock.Instant?
        var eventViewers: [Int: EventBacklog] = [:]
        var nextViewer = 0
        var recentCodes: [[UInt8]] = []
        var closed = false
        var viewersDropped = 0
    }

    /// Bytes an events viewer may fall behind before it is dropped.
    public static let eventBacklogBytes = 256 * 1024
    /// How long a reader waits for something new before it returns empty-handed (asked again).
    static let readWait: Duration = .seconds(1)

    let recentCodesKept: Int
    private let state = LockedValue(State())

    public init(recentCodes: Int = 20) { recentCodesKept = recentCodes }

    /// Whether someone wants pictures now: a pictures viewer, or a recent `/snapshot.jpg`.
    public var wantsPictures: Bool {
        state.withLock { state in
            state.pictureViewers > 0 || (state.snapshotDemandUntil.map { ContinuousClock.now < $0 } ?? false)
        }
    }

    /// Viewers connected now (pictures and events).
    public var viewers: Int { state.withLock { $0.pictureViewers + $0.eventViewers.count } }
    /// Whether an events viewer is connected (someone to send outlines to).
    public var wantsEvents: Bool { state.withLock { !$0.eventViewers.isEmpty } }
    /// Events viewers dropped because they fell `eventBacklogBytes` behind.
    public var viewersDropped: Int { state.withLock { $0.viewersDropped } }

    /// Sends one code's JSON line (as on stdout, newline included) to every events viewer.
    public func publishCode(_ line: [UInt8]) {
        let body = Array(line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...])
        publish(Array("data: ".utf8) + body + Array("\n\n".utf8), recent: body)
    }

    /// Sends the status (one JSON object) to every events viewer as an `event: status`.
    public func publishStatus(_ json: [UInt8]) {
        publish(Array("event: status\ndata: ".utf8) + json + Array("\n\n".utf8), recent: nil)
    }

    /// Sends what one frame held (one JSON object, `LiveViewSightings`) to every events viewer as
    /// an `event: sightings`; a viewer connecting later does not get it.
    public func publishSightings(_ json: [UInt8]) {
        publish(Array("event: sightings\ndata: ".utf8) + json + Array("\n\n".utf8), recent: nil)
    }

    private func publish(_ event: [UInt8], recent: [UInt8]?) {
        state.withLock { state in
            if let recent {
                state.recentCodes.append(recent)
                if state.recentCodes.count > recentCodesKept { state.recentCodes.removeFirst() }
            }
            // In place (the dictionary's modify accessor): a backlog is never copied to append to it.
            for id in Array(state.eventViewers.keys)
            where state.eventViewers[id]?.append(event, limit: Self.eventBacklogBytes) == true {
                state.viewersDropped += 1
            }
        }
        state.broadcast()
    }

    /// The newest preview picture (a JPEG) for every pictures viewer and `/snapshot.jpg`.
    func publishPicture(_ jpeg: [UInt8]) {
        state.withLock { state in
            state.picture = Picture(jpeg: jpeg, generation: (state.picture?.generation ?? 0) + 1)
        }
        state.broadcast()
    }

    /// A new events viewer; it first gets the recent code lines (as `event: recent`, so a page
    /// lists them without outlining codes that may have left the picture).
    public func openEvents() -> LiveViewEventViewer {
        let id = state.withLock { state in
            defer { state.nextViewer += 1 }
            let recent = state.recentCodes.flatMap { Array("event: recent\ndata: ".utf8) + $0 + Array("\n\n".utf8) }
            state.eventViewers[state.nextViewer] = EventBacklog(bytes: Array(": syncscan events\n\n".utf8) + recent)
            return state.nextViewer
        }
        return LiveViewEventViewer(hub: self, id: id)
    }

    /// A new pictures viewer: pictures come while it is open.
    public func openPictures() -> LiveViewPictureViewer {
        state.withLock { $0.pictureViewers += 1 }
        return LiveViewPictureViewer(hub: self)
    }

    /// A picture newer than the call when one comes within `wait` (pictures start coming for a
    /// while), else the newest there is; `nil` when there is none.
    public func latestPicture(waitingUpTo wait: Duration) -> [UInt8]? {
        let deadline = ContinuousClock.now + wait
        let seen = state.withLock { state in
            state.snapshotDemandUntil = deadline + .seconds(2)
            return state.picture?.generation ?? 0
        }
        return state.withLock(when: { $0.closed || ($0.picture?.generation ?? 0) > seen }, deadline: deadline) { state, _ in
            state.picture?.jpeg
        }
    }

    /// Ends every viewer's stream (the service stops).
    public func close() {
        state.withLock { $0.closed = true }
        state.broadcast()
    }

    fileprivate func readEvents(_ id: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        state.withLock(when: { $0.closed || $0.eventViewers[id].map { $0.dropped || !$0.bytes.isEmpty } ?? true },
                       deadline: ContinuousClock.now + Self.readWait) { state, _ in
            guard !state.closed, state.eventViewers[id]?.dropped == false else { return nil }
            let count = min(buffer.count, state.eventViewers[id]!.bytes.count)
            state.eventViewers[id]!.bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            state.eventViewers[id]!.bytes.removeFirst(count)  // in place, like the appends
            return count
        }
    }

    fileprivate func closeEvents(_ id: Int) { state.withLock { _ = $0.eventViewers.removeValue(forKey: id) } }

    /// The newest picture after `generation`, waiting a while for one; `nil` once closed.
    fileprivate func picture(after generation: Int) -> Picture?? {
        state.withLock(when: { $0.closed || ($0.picture?.generation ?? 0) > generation },
                       deadline: ContinuousClock.now + Self.readWait) { state, ready in
            if state.closed { return nil }
            return .some(ready ? state.picture : nil)
        }
    }

    fileprivate func closePictures() { state.withLock { $0.pictureViewers -= 1 } }
}

/// One events viewer (`/events`): Server-Sent Events, read on the viewer's connection thread.
public final class LiveViewEventViewer: Sendable {
    private let hub: LiveViewHub
    private let id: Int
    private let closed = LockedValue(false)

    fileprivate init(hub: LiveViewHub, id: Int) { (self.hub, self.id) = (hub, id) }

    /// Copies pending bytes into `buffer`, waiting up to a second for some: their count (0: none
    /// yet), or `nil` when the stream is over (the viewer fell too far behind, or the hub closed).
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if closed.withLock({ $0 }) { return nil }
        return hub.readEvents(id, into: buffer)
    }

    /// The viewer went away: its backlog is freed.
    public func close() {
        guard closed.withLock({ state in defer { state = true }; return !state }) else { return }
        hub.closeEvents(id)
    }
}

/// One pictures viewer (`/stream.mjpeg`): `multipart/x-mixed-replace` parts of the newest picture.
public final class LiveViewPictureViewer: Sendable {
    /// The part being sent and how far; touched only by the viewer's connection thread (and `close`).
    private struct Sending {
        var part: [UInt8] = []
        var sent = 0
        var generation = 0
        var idleReads = 0
        var closed = false
    }

    /// The boundary between parts.
    public static let boundary = "syncscanframe"
    /// Reads without a new picture after which the newest is sent again (a stalled source keeps
    /// the connection alive).
    static let idleReadsBeforeRepeat = 10

    private let hub: LiveViewHub
    private let sending = LockedValue(Sending())

    fileprivate init(hub: LiveViewHub) { self.hub = hub }

    /// Copies the next bytes of the current part into `buffer`, waiting up to a second for a new
    /// picture when the part is done: their count (0: none yet), or `nil` when the hub closed.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let (needsPicture, generation, repeatLast) = sending.withLock { s in
            (s.sent >= s.part.count, s.generation, s.idleReads >= Self.idleReadsBeforeRepeat)
        }
        if needsPicture {
            guard let next = hub.picture(after: repeatLast ? generation - 1 : generation) else { return nil }
            let startedPart = sending.withLock { s -> Bool in
                guard let picture = next, !s.closed else { s.idleReads += 1; return false }
                s.part = Array("--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(picture.jpeg.count)\r\n\r\n".utf8)
                    + picture.jpeg + Array("\r\n".utf8)
                (s.sent, s.generation, s.idleReads) = (0, picture.generation, 0)
                return true
            }
            if !startedPart { return 0 }
        }
        return sending.withLock { s in
            let count = min(buffer.count, s.part.count - s.sent)
            s.part.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[s.sent..<(s.sent + count)])) }
            s.sent += count
            return count
        }
    }

    /// The viewer went away.
    public func close() {
        let first = sending.withLock { s in defer { s.closed = true }; return !s.closed }
        if first { hub.closePictures() }
    }
}
