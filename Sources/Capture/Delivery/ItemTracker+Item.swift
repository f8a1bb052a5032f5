import Media

extension ItemTracker {
    /// One physical code followed from frame to frame: what it carries, where it is and how it
    /// moves, and whether it was reported.
    struct Item: Sendable {
        let id: UInt64
        let symbology: Symbology
        let data: [UInt8], mainData: [UInt8]
        let text: String?
        var place: Place
        /// Pixels per second, smoothed over the readings.
        var velocity: (x: Double, y: Double) = (0, 0)
        let first: ItemFrame
        var lastSeen: ItemFrame
        /// Scanned frames counted when it was first and last seen (its frames present in between).
        let firstScan: Int
        var lastScan: Int
        var framesRead = 1
        var lastUpdate: MediaTime
        /// Reported (its first line written); `false` while tentative: begun by a reading its
        /// frame could not confirm, waiting for a reading in another frame.
        var confirmed: Bool
        /// A tentative item's readings awaiting confirmation (counted confirmed, misread or dropped with it).
        var awaiting = 0
        /// A tentative item's first reading, for its line should it leave unconfirmed (`ItemConfirmation.reportsUnconfirmed`).
        var firstReading: MachineReadableCodeObject?
        /// The last frame that read it (`lastSeen` may be a detection's).
        var lastRead: UInt64
        /// The timestamp of the frame `place` was read in.
        var placeTime: MediaTime
        /// `ItemTracker.blind` when it was last seen.
        var blindAtLastSeen: MediaTime
        /// A tentative item where another tentative one of a payload it could be confused with
        /// was read: only a reading its own frame confirmed confirms it (zbar's repeated
        /// misreading of one label must not confirm itself).
        var contested = false

        /// How far its readings fell from where it was predicted (pixels, smoothed); infinite
        /// until a prediction was made.
        var predictionError = Double.infinity

        /// Whether it moves: at least its own size a second, and 100 pixels a second (more than
        /// a hand's tremor), over more than one reading.
        var isMoving: Bool {
            let speed = (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot()
            return framesRead > 2 && speed >= max(100, place.size)
        }

        /// Whether it moves as predicted (a parcel on a running belt): its readings fall within a
        /// fifth of its size of the prediction. A stop, a reversal or a wave breaks it.
        var isSteady: Bool { isMoving && predictionError <= 4 + 0.2 * place.size }

        /// Where it should be at `pts`, from where it was last read and how it moved.
        func predicted(at pts: MediaTime) -> (x: Double, y: Double) {
            let dt = (pts - placeTime).seconds
            return (place.center.x + velocity.x * dt, place.center.y + velocity.y * dt)
        }

        /// How far a reading at `other` is from this item: from where it is predicted, or from
        /// where it was last read, whichever is nearer (a code waved back, or a burst of frames
        /// whose timestamps crowd together, is not lost to a prediction that overshot).
        ///
        /// A steady mover unread for longer than `ItemTracker.steadyGap` is looked for at its
        /// predicted place only: what lies where it was last read is the label behind it (a run
        /// of identical labels on a belt), not it.
        func distance(to other: Place, at pts: MediaTime) -> Double {
            let predicted = ItemTracker.distance(self.predicted(at: pts), other.center)
            if isSteady && (pts - placeTime).seconds > ItemTracker.steadyGap { return predicted }
            return min(predicted, ItemTracker.distance(place.center, other.center))
        }

        /// How far a reading at `place` may be from the predicted place and still be this item:
        /// one and a half times the code's size, three quarters for a steady mover (whose
        /// prediction holds: a twin label beside it on the parcel is another item).
        func gate(for other: Place) -> Double { max(24, (isSteady ? 0.75 : 1.5) * max(place.size, other.size)) }

        var removed: RemovedItem {
            RemovedItem(id: id, symbology: symbology, data: data, text: text, first: first, last: lastSeen,
                        framesPresent: lastScan - firstScan + 1, framesRead: framesRead, corners: place.corners)
        }
    }
}
