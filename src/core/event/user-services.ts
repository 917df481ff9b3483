// What the CustomUserAttributes and UserNotification (sendsms) modules may do for the request's
// users: core's custom attributes, written as the server itself, and core's SMS sending.
import type { EventSms, EventUser, EventUserAttributes } from '../../event-handlers/index.ts';
import type { Runtime } from '../context.ts';
import { sendSms } from '../smsgateway/index.ts';
import { type AttributeOwner, deleteUserAttributeAsServer, setUserAttributeAsServer } from '../user/index.ts';
import type { EventFacts, UserFacts } from './facts.ts';

function userOf(facts: EventFacts, who: EventUser): Promise<UserFacts | undefined> {
  return who === 'tokenowner' ? facts.owner() : facts.loggedInUser();
}

async function attributeOwner(facts: EventFacts, who: EventUser): Promise<AttributeOwner> {
  const user = await userOf(facts, who);
  if (!user?.userid) {
    throw new Error(
      who === 'tokenowner' ? 'the request names no token with an owner' : 'the request has no logged-in user',
    );
  }
  return { userid: user.userid, resolver: user.resolver, realm: user.realm };
}

export function userAttributes(rt: Runtime, facts: EventFacts): EventUserAttributes {
  return {
    set: async (who, key, value) => {
      await setUserAttributeAsServer(rt, await attributeOwner(facts, who), key, value);
    },
    delete: async (who, key) => {
      await deleteUserAttributeAsServer(rt, await attributeOwner(facts, who), key);
    },
  };
}

export function eventSms(rt: Runtime, facts: EventFacts): EventSms {
  return {
    send: async (gateway, phone, message) => {
      const sent = await sendSms(rt, gateway, phone, message);
      if (!sent.success) throw new Error(`the SMS was not sent: ${sent.reason}`);
    },
    phoneOf: async (who) => (await userOf(facts, who))?.mobile || undefined,
  };
}
