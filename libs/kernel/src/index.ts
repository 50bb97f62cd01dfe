export { DomainError, assertNever } from './domain-error';
export { fold, type Decider, type Message } from './decider';
