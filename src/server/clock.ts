/** The time source. Injected everywhere that time matters, so tests move it instead of sleeping. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

export const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000)
