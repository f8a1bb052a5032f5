import Media

extension ItemTracker {
    /// A code's place in one frame: its outline and the frame.
    struct Place: Sendable {
        var corners: [PixelPoint]
        var center: (x: Double, y: Double)
        /// Half the outline box's width and height.
        var halfExtent: (x: Double, y: Double)
        /// The outline's larger side, at least 1.
        var size: Double

        init(corners: [PixelPoint], bounds: PixelRect) {
            self.corners = corners
            center = (Double(bounds.x) + Double(bounds.width) / 2, Double(bounds.y) + Double(bounds.height) / 2)
            halfExtent = (Double(bounds.width) / 2, Double(bounds.height) / 2)
            size = Double(max(1, bounds.width, bounds.height))
        }

        /// Whether `point` lies in this outline's box, centred at `center`, widened on every side by
        /// 15 % of its larger side (at least 8 pixels): `MachineReadableCodeObject.overlaps`' rule.
        func covers(_ point: (x: Double, y: Double), centeredAt center: (x: Double, y: Double)) -> Bool {
            let margin = max(8, 0.15 * size)
            return abs(point.x - center.x) <= halfExtent.x + margin && abs(point.y - center.y) <= halfExtent.y + margin
        }
    }
}
