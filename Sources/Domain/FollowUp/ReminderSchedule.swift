import Foundation

/// When a paid, unredeemed web purchase gets its reminder mails (API.md "Every buyer brought in"):
/// reminder *n* is due at the payment time + `offsets[n]`; after downtime (or when the payment
/// was learnt late) only the latest due one is sent, and none more than `maximumLateness` late.
/// A pure rule: the worker asks it what to do with a journey whose next reminder is due.
public struct ReminderSchedule: Sendable, Equatable {
    /// Seconds after payment, increasing and positive (`redemption.reminders`); empty: off.
    public let offsets: [TimeInterval]
    /// How late a reminder may still leave (24 h).
    public let maximumLateness: TimeInterval

    /// No reminders at all.
    public static let off = ReminderSchedule(offsets: [])

    /// A schedule of `offsets` seconds after payment (the caller has checked they increase).
    public init(offsets: [TimeInterval], maximumLateness: TimeInterval = 86_400) {
        self.offsets = offsets
        self.maximumLateness = maximumLateness
    }

    /// Whether any reminder is scheduled.
    public var isOn: Bool { !offsets.isEmpty }

    /// When reminder `step` is due for a purchase paid at `paidAt`; nil past the last one.
    public func due(step: Int, paidAt: Date) -> Date? {
        guard step >= 0, step < offsets.count else { return nil }
        return paidAt.addingTimeInterval(offsets[step])
    }

    /// What to do at `now` for a journey whose next unsent reminder is `step`.
    public struct Decision: Sendable, Equatable {
        /// The reminder to send now (its index), or nil: nothing leaves now.
        public let send: Int?
        /// The next reminder not yet due (or `offsets.count` when none is left).
        public let nextStep: Int
        /// When `nextStep` is due; nil when none is left.
        public let nextDue: Date?
    }

    /// The latest reminder due at `now` at or after `step` is sent unless it is more than
    /// `maximumLateness` late; the earlier due ones are passed over.
    public func decide(step: Int, paidAt: Date, now: Date) -> Decision {
        var latest: Int?
        var index = max(step, 0)
        while index < offsets.count, paidAt.addingTimeInterval(offsets[index]) <= now {
            latest = index
            index += 1
        }
        guard let latest else {
            return Decision(send: nil, nextStep: max(step, 0), nextDue: due(step: max(step, 0), paidAt: paidAt))
        }
        let lateness = now.timeIntervalSince(paidAt.addingTimeInterval(offsets[latest]))
        return Decision(send: lateness <= maximumLateness ? latest : nil, nextStep: latest + 1, nextDue: due(step: latest + 1, paidAt: paidAt))
    }
}
