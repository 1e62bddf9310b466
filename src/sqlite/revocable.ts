/** A view of an object that works until it is revoked. */
export interface Revocable<T> {
  readonly view: T;
  /** From now on, reading any member of the view, or calling any method reached through it, throws. */
  revoke(): void;
}

/** What a view refuses once its one call is made (a single write's second statement). */
export interface OneCall {
  /** The error of a second method call through the view. */
  secondCall(): Error;
}

/**
 * A view of `target` (an object of repositories, or one repository) whose members, at any depth,
 * read through to `target` until `revoke()`; then each use throws `revokedError()`. A method taken
 * off the view before (`const { insert } = tx.resources.orders`) is checked on every call too.
 * With `oneCall`, the second method call through the view throws before it runs.
 */
export function revocableView<T extends object>(target: T, revokedError: () => Error, oneCall?: OneCall): Revocable<T> {
  let revoked = false;
  let called = false;
  const check = (): void => {
    if (revoked) throw revokedError();
  };
  const checkCall = oneCall === undefined ? check : (): void => {
    check();
    if (called) throw oneCall.secondCall();
    called = true;
  };
  const views = new Map<object, object>();
  const viewOf = <O extends object>(object: O): O => {
    const known = views.get(object);
    if (known !== undefined) return known as O;
    // The proxy's own target is an empty object, so the proxy invariants never bind its answers
    // to the real object's (a frozen method could not be replaced by its checked twin).
    const view = new Proxy<O>(Object.create(null) as O, {
      get(_, key) {
        check();
        const member: unknown = Reflect.get(object, key);
        if (typeof member === 'function') {
          const method = member as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            checkCall();
            return Reflect.apply(method, object, args);
          };
        }
        return typeof member === 'object' && member !== null ? viewOf(member) : member;
      },
    });
    views.set(object, view);
    return view;
  };
  return {
    view: viewOf(target),
    revoke: () => {
      revoked = true;
    },
  };
}
