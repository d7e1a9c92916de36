// The mailbox's store failures in words: the shared sentences, naming the mail root and the setting
// that moves it. The one place that turns a StoreError into text, for the engine's notices and the
// Pi texts alike.
import type { PathSafetyError, StoreError } from "../../ports/shared/store-error.js";
import {
  describeStoreError as describeFailure,
  describePathSafety as describeUnsafe,
  type StorePlace,
} from "../shared/store-error-words.js";
import { labelFieldCharsMax, noticeCharsMax } from "./limits.js";

const mailRoot: StorePlace = {
  root: "the mail root",
  setting: "XDG_STATE_HOME",
  halted: "no mail is read from it",
  pathCharsMax: labelFieldCharsMax,
  messageCharsMax: noticeCharsMax,
};

export const describeStoreError = (error: StoreError): string => describeFailure(error, mailRoot);

/** What is unsafe about the mail root, and what the user can do about it, in words. */
export const describePathSafety = (error: PathSafetyError): string => describeUnsafe(error, mailRoot);
