import autocannon from 'autocannon'

/** autocannon's run as a promise of its result. */
export function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))))
}
