// The baseline the history benchmark compares against: the obvious design that every peer uses, passing the
// whole message list to every model activity. Not part of the product.
import { proxyActivities } from '@temporalio/workflow';

export interface NaiveActivities {
  naiveModel(messages: unknown[]): Promise<{ text: string; done: boolean }>;
  naiveTool(input: string): Promise<string>;
}

const { naiveModel, naiveTool } = proxyActivities<NaiveActivities>({ startToCloseTimeout: '1 minute' });

export async function naiveAgentWorkflow(task: string): Promise<number> {
  const messages: unknown[] = [{ role: 'user', content: task }];
  for (;;) {
    const reply = await naiveModel(messages);
    messages.push({ role: 'assistant', content: reply.text });
    if (reply.done) return messages.length;
    messages.push({ role: 'user', content: await naiveTool('x') });
  }
}
