// A Kafka consumer in its own process, for the bus contract's crash test (kafka-crash.harness.ts).
// Plain JS so the test can fork it without a TypeScript loader. It joins CRASH_GROUP on CRASH_TOPIC
// (from the beginning), handles and commits each message, except one whose JSON value has
// `block: true`: it reports that one and never finishes it, until the test SIGKILLs this process.
// Reports to the parent over IPC: {type:'ready'} | {type:'handled', value} | {type:'blocked', value}.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const brokers = (process.env.CRASH_BROKERS || '127.0.0.1:9092').split(',');
const group = process.env.CRASH_GROUP;
const topic = process.env.CRASH_TOPIC;

function report(message) {
  if (process.send) process.send(message);
}

async function main() {
  const kafka = new Kafka({ brokers, clientId: 'crash-consumer', logLevel: logLevel.NOTHING });
  // The topic may not exist yet (KafkaBus creates topics on first use, with 8 partitions).
  const admin = kafka.admin();
  await admin.connect();
  if (!(await admin.listTopics()).includes(topic)) {
    await admin.createTopics({
      topics: [{ topic, numPartitions: 8, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  }
  await admin.disconnect();
  // The broker's minimum session timeout is 6 s: the dead member is evicted that long after its last heartbeat.
  const consumer = kafka.consumer({
    groupId: group,
    sessionTimeout: 6000,
    rebalanceTimeout: 6000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 100,
  });
  let joined = false;
  let ready = false;
  consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
  consumer.on(consumer.events.FETCH, () => {
    if (joined && !ready) {
      ready = true;
      report({ type: 'ready' });
    }
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic: t, partition, message }) => {
      const value = JSON.parse(message.value.toString('utf8'));
      if (value && value.block === true) {
        report({ type: 'blocked', value });
        await new Promise(() => {}); // stuck until killed
      }
      await consumer.commitOffsets([
        { topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() },
      ]);
      report({ type: 'handled', value });
    },
  });
}

main().catch((error) => {
  console.error('crash-consumer failed:', error);
  process.exit(1);
});
